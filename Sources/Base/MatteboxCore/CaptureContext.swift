import Foundation

/// Where the camera that took a photo faces, as AVCaptureDevice.Position does.
/// It decides the front-camera mirroring policy.
package enum CameraPosition: String, Sendable, Codable, CaseIterable {
    case front, back, external, unspecified
}

/// The capture's trade between speed and quality (AVCapturePhotoOutput's
/// quality prioritisation); stages use it to pick resolution and refinement.
package enum QualityPrioritization: String, Sendable, Codable, CaseIterable {
    case speed, balanced, quality
}

/// How a photo came to be: the device, its position and sensor rotation, whether
/// the pixels are already mirrored, when it was taken and under what conditions.
/// Stored files get what can be inferred from EXIF; the capture front end fills
/// in the rest.
package struct CaptureContext: Sendable, Codable, Equatable {
    package var device: String?
    package var position: CameraPosition = .unspecified
    /// Clockwise degrees the sensor is mounted at (0, 90, 180, 270).
    package var sensorRotation: Int = 0
    /// True when the pixels are a mirror image of the scene (a selfie preview).
    package var isMirrored: Bool = false
    package var timestamp: Date?
    package var thermalLevel: String?
    package var quality: QualityPrioritization = .balanced
    /// What the camera reported when the frame was taken: seconds, ISO, automatic white balance.
    package var exposureTime: Double?
    package var iso: Int?
    package var autoWhiteBalance: Bool?

    package init() {}
}
