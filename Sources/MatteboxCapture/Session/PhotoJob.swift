import Foundation
import MatteboxCore
import MatteboxPressure

/// Turns a chosen frame into a CapturedPhoto and hands it to the delivery,
/// off the session's executor so several photos can be processed while the
/// camera keeps streaming.
struct PhotoJob: Sendable {
    var frame: CapturedFrame
    var decoder: any FrameDecoder
    var camera: CameraDevice
    var settings: PhotoSettings
    var quality: QualityPrioritization
    var pressure: PressureLevel
    var skippedRoles: Set<ImageRole>
    var skipReason: String
    var delivery: any PhotoDelivery

    func run(onProcessed: @Sendable () -> Void) throws -> CaptureResult {
        let captured = try makePhoto()
        return CaptureResult(captured, try delivery.deliver(captured, processed: onProcessed))
    }

    private func makePhoto() throws -> CapturedPhoto {
        var photo = Photo(primary: try decoder.rgbImage(of: frame))
        var context = CaptureContext()
        context.device = camera.id
        context.position = camera.position
        context.sensorRotation = camera.sensorRotation
        let age = Double(MonotonicClock.now() &- frame.timestamp) / 1e9
        context.timestamp = Date(timeIntervalSinceNow: -max(0, age))
        context.thermalLevel = pressure.description
        context.quality = quality
        photo.metadata.capture = context
        // V4L2's sensor rotation is the counter-clockwise turn that makes the frame upright.
        photo.metadata.orientation = ExifOrientation(
            mirrored: false, clockwiseQuarterTurns: (4 - camera.sensorRotation / 90 % 4) % 4)
        return CapturedPhoto(
            photo: photo, id: settings.uniqueID, frameSequence: frame.sequence, frameTimestamp: frame.timestamp,
            pressTime: settings.pressTime, quality: quality, size: frame.format.size, skippedRoles: skippedRoles,
            skipReason: skipReason, mirroringRequested: settings.mirrorsFrontCamera && camera.position == .front,
            cameraPath: camera.path)
    }
}
