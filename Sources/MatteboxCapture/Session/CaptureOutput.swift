import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline

/// Where captured photos go: through a pipeline (optional) and out to files
/// named `capture-<time>-<id>` by a `PhotoWriter`.
public struct CaptureOutput: Sendable {
    public var runner: PipelineRunner?
    public var writer: PhotoWriter

    public init(runner: PipelineRunner?, writer: PhotoWriter) {
        self.runner = runner
        self.writer = writer
    }
}

/// A photo the session finished: the file, what each stage did, and the frame it came from.
public struct CaptureResult: Sendable {
    public var id: Int64
    public var output: URL
    public var auxiliaryOutputs: [URL]
    public var stages: [StageReport]
    public var notes: [String: String]
    public var absenceReasons: [String: String]
    public var frameSequence: UInt32
    public var frameTimestamp: UInt64
    public var pressTime: UInt64
    public var quality: QualityPrioritization
    public var size: FrameSize
    /// Press to file written, in seconds.
    public var shutterToFileSeconds: Double
}

/// Turns a chosen frame into a written photo, off the session's executor so
/// several photos can be processed while the camera keeps streaming.
struct PhotoJob: Sendable {
    var frame: CapturedFrame
    var converter: FrameConverter
    var camera: CameraDevice
    var settings: PhotoSettings
    var quality: QualityPrioritization
    var pressure: PressureLevel
    var skippedRoles: Set<ImageRole>
    var skipReason: String
    var output: CaptureOutput

    func run(onProcessed: () -> Void) throws -> CaptureResult {
        var primary = try converter.rgbImage(of: frame)
        let mirrored = settings.mirrorsFrontCamera && camera.position == .front
        if mirrored { primary = try ImageGeometry.apply(.flipHorizontal, to: primary) }
        var photo = Photo(primary: primary)
        var context = CaptureContext()
        context.device = camera.id
        context.position = camera.position
        context.sensorRotation = camera.sensorRotation
        context.isMirrored = mirrored
        let age = Double(MonotonicClock.now() &- frame.timestamp) / 1e9
        context.timestamp = Date(timeIntervalSinceNow: -max(0, age))
        context.thermalLevel = pressure.description
        context.quality = quality
        photo.metadata.capture = context
        // V4L2's sensor rotation is the counter-clockwise turn that makes the frame upright.
        photo.metadata.orientation = ExifOrientation(
            mirrored: false, clockwiseQuarterTurns: (4 - camera.sensorRotation / 90 % 4) % 4)
        var stages: [StageReport] = []
        if let runner = output.runner {
            do {
                stages = try runner.run(&photo, skippingStagesProviding: skippedRoles, reason: skipReason)
            } catch {
                throw MatteboxError("photo \(settings.uniqueID) from \(camera.path): \(error.message)")
            }
        }
        onProcessed()
        let stem = "capture-\(Self.stamp(context.timestamp ?? Date()))-\(settings.uniqueID)"
        let written = try output.writer.write(photo, stem: stem)
        return CaptureResult(
            id: settings.uniqueID, output: written.output, auxiliaryOutputs: written.auxiliary, stages: stages,
            notes: photo.metadata.notes,
            absenceReasons: Dictionary(uniqueKeysWithValues: photo.absenceReasons.map { ($0.key.rawValue, $0.value) }),
            frameSequence: frame.sequence, frameTimestamp: frame.timestamp, pressTime: settings.pressTime, quality: quality,
            size: frame.format.size, shutterToFileSeconds: Double(MonotonicClock.now() &- settings.pressTime) / 1e9)
    }

    private static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss-SSS"
        return formatter.string(from: date)
    }
}
