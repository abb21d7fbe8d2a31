import Foundation

/// Where the camera that took a photo faces, as AVCaptureDevice.Position does.
/// It decides the front-camera mirroring policy.
public enum CameraPosition: String, Sendable, Codable, CaseIterable {
    case front, back, external, unspecified
}

/// The capture's trade between speed and quality (AVCapturePhotoOutput's
/// quality prioritisation); stages use it to pick resolution and refinement.
public enum QualityPrioritization: String, Sendable, Codable, CaseIterable {
    case speed, balanced, quality
}

/// How a photo came to be: the device, its position and sensor rotation, whether
/// the pixels are already mirrored, when it was taken and under what conditions.
/// Stored files get what can be inferred from EXIF; the capture front end fills
/// in the rest.
public struct CaptureContext: Sendable, Codable, Equatable {
    public var device: String?
    public var position: CameraPosition = .unspecified
    /// Clockwise degrees the sensor is mounted at (0, 90, 180, 270).
    public var sensorRotation: Int = 0
    /// True when the pixels are a mirror image of the scene (a selfie preview).
    public var isMirrored: Bool = false
    public var timestamp: Date?
    public var thermalLevel: String?
    public var quality: QualityPrioritization = .balanced
    /// What the camera reported when the frame was taken: seconds, ISO, automatic white balance.
    public var exposureTime: Double?
    public var iso: Int?
    public var autoWhiteBalance: Bool?

    public init() {}
}
