import Foundation
import MatteboxCore
import MatteboxPressure
import MatteboxRuntime

/// Turns a chosen frame into a CapturedPhoto (decoded, with its EXIF and
/// capture context), off the session's executor.
struct PhotoJob: Sendable {
    var frame: CapturedFrame
    var decoder: any FrameDecoder
    var camera: CameraDevice
    var settings: PhotoSettings
    var quality: QualityPrioritization
    var pressure: PressureLevel
    var skippedRoles: Set<ImageRole>
    var skipReason: String
    var cameraSettings: CameraSettings

    /// The EXIF a camera app writes: the device as make and model, Mattebox
    /// as the software, when (with sub-seconds and the UTC offset), how the
    /// stored pixels are displayed, and the exposure the camera reported.
    private func exif(for context: CaptureContext, orientation: ExifOrientation) -> ExifBlock {
        var builder = ExifBuilder()
        builder.make = camera.make
        builder.model = camera.name
        builder.software = "Mattebox \(MatteboxVersion.current)"
        builder.orientation = orientation
        builder.date = context.timestamp
        builder.exposureTime = context.exposureTime
        builder.iso = context.iso
        builder.autoWhiteBalance = context.autoWhiteBalance
        builder.appleContentIdentifier = settings.livePhotoContentIdentifier
        return builder.build()
    }

    func makePhoto() throws -> CapturedPhoto {
        var photo = Photo(primary: try decoder.rgbImage(of: frame))
        var context = CaptureContext()
        context.device = camera.id
        context.position = camera.position
        context.sensorRotation = camera.sensorRotation
        let age = Double(MonotonicClock.now() &- frame.timestamp) / 1e9
        context.timestamp = Date(timeIntervalSinceNow: -max(0, age))
        context.thermalLevel = pressure.description
        context.quality = quality
        context.exposureTime = cameraSettings.exposureTime
        context.iso = cameraSettings.iso
        context.autoWhiteBalance = cameraSettings.autoWhiteBalance
        photo.metadata.capture = context
        if let format = settings.outputFormat { photo.metadata.output.format = format }
        // V4L2's sensor rotation is the counter-clockwise turn that makes the frame upright.
        photo.metadata.orientation = ExifOrientation(
            mirrored: false, clockwiseQuarterTurns: (4 - camera.sensorRotation / 90 % 4) % 4)
        photo.metadata.exif = exif(for: context, orientation: photo.metadata.orientation)
        return CapturedPhoto(
            photo: photo, id: settings.uniqueID, frameSequence: frame.sequence, frameTimestamp: frame.timestamp,
            pressTime: settings.pressTime, quality: quality, size: frame.format.size, skippedRoles: skippedRoles,
            skipReason: skipReason, mirroringRequested: settings.mirrorsFrontCamera && camera.position == .front,
            cameraPath: camera.path)
    }
}
