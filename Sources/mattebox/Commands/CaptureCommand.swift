import ArgumentParser
import Foundation
import MatteboxCapture
import MatteboxCaptureService
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxPressure
import MatteboxRuntime

/// `mattebox capture`: takes photos from a camera (or a replay camera when
/// there is none), runs each through the pipeline and writes it, while a
/// live-view stream runs as a UI's would; prints each photo's shutter-to-file
/// time and the preview frame rate.
struct CaptureCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Take photos from a camera, run them through a pipeline, and write them.",
        discussion: """
            The photo is the frame being exposed when the shutter was pressed (zero shutter lag). \
            --priority speed takes that frame as it is, balanced the sharpest of the last two frames \
            up to the press, quality switches the camera to its largest size for the still. \
            --quality is the JPEG or HEIF quality (1-100), as for `mattebox process`. With \
            no camera, a replay camera plays the bundled samples (see `mattebox devices`). The \
            session follows system pressure (`mattebox thermal`): 20 fps and no depth at serious, \
            no mattes at critical, paused at shutdown.
            """)

    @OptionGroup var verbosity: Verbosity
    @OptionGroup var sources: CameraSources
    @OptionGroup var camera: CameraChoice
    @Option(help: "Photos to take.") var count = 1
    @Option(help: "Seconds between photos.") var interval: Double = 1
    @Option(help: "Pipeline file (YAML) or named pipeline; default: turn photos upright.", completion: Completions.pipelines)
    var pipeline: String?
    @Option(help: "Quality prioritisation: speed, balanced or quality.") var priority: String = "balanced"
    @Option(help: "JPEG or HEIF quality, 1-100 (default: 92 for JPEG, 75 for HEIF).") var quality: String?
    @Option(help: "Output format: \(ImageContainers.writableNames), any case or alias; default: \(PhotoWriter.defaultFormatRule).", completion: Completions.formats)
    var format: String?
    @Option(name: .shortAndLong, help: "Folder to write photos to (created if missing).") var output: String
    @Flag(help: "Mirror front camera photos as the preview shows them.") var mirrorFront = false
    @Flag(help: "Take photos at full speed with every stage whatever the thermal state.") var ignorePressure = false
    @Flag(help: "Print a JSON report instead of text.") var json = false

    struct Report: Encodable {
        var camera: String
        var cameraPath: String
        var replay: Bool
        var photos: [Photo]
        var previewFramesPerSecond: Double
        var frames: Frames
    }

    struct Photo: Encodable {
        var output: String
        var frameSequence: UInt32
        var width: Int
        var height: Int
        var quality: String
        var shutterToFileSeconds: Double
        var stages: [StageReport]
        /// What stages said, and why images were not made (as `process` reports them).
        var notes: [String: String]
    }

    struct Frames: Encodable {
        var kept: Int
        var defective: Int
        var throttled: Int
    }

    func validate() throws {
        guard count >= 1 else { throw ValidationError("--count must be at least 1") }
        guard interval >= 0 else { throw ValidationError("--interval must not be negative") }
        guard QualityPrioritization(rawValue: priority) != nil else {
            throw ValidationError("--priority takes speed, balanced or quality, not \(priority)")
        }
        if let quality, Int(quality).map({ (1...100).contains($0) }) != true {
            let moved = QualityPrioritization(rawValue: quality) != nil ? " (for speed/balanced/quality, use --priority \(quality))" : ""
            throw ValidationError("--quality takes a number 1-100, not \(quality)\(moved)")
        }
        if let format, OutputFormat(rawValue: format) == nil {
            throw ValidationError("--format takes \(ImageContainers.writableNames), not \(format)")
        }
    }

    func run() throws {
        let cameras = try sources.discover()
        let camera = try self.camera.choose(from: cameras)
        let directory = URL(fileURLWithPath: output)
        try OutputFolder.prepare(directory)
        let session = try CaptureService.makeSession(
            cameras: cameras, camera: camera, pipeline: try PipelineSource.load(pipeline),
            registry: PluginRegistry.discoverForThisExecutable(),
            writer: PhotoWriter(
                directory: directory, format: format.flatMap(OutputFormat.init(rawValue:)), quality: quality.flatMap { Int($0) }),
            pressureMonitor: ignorePressure ? nil : PressureMonitor())
        let report = try runBlocking { try await shoot(session, camera: camera) }
        if json { return try JSONOutput.print(report) }
        for photo in report.photos {
            print("\(photo.output)  \(photo.width)x\(photo.height)  frame \(photo.frameSequence)  "
                + String(format: "shutter-to-file %.3f s", photo.shutterToFileSeconds))
            for line in NoteLines.render(photo.notes) { print("      \(line)") }
        }
        print(String(format: "camera %@%@: preview %.1f fps; frames kept %d, defective %d, throttled %d",
                     report.camera, report.replay ? " (replay)" : "", report.previewFramesPerSecond,
                     report.frames.kept, report.frames.defective, report.frames.throttled))
    }

    /// One warning line when the session starts throttling under system
    /// pressure, and one when it stops (the steps between at info level).
    private static func reportPressure(_ events: AsyncStream<CaptureEvent>) async {
        var throttled = false
        for await event in events {
            guard case .systemPressure(let level) = event else { continue }
            let now = level >= .serious
            if now != throttled {
                Log.emit(.warning, now
                    ? "system pressure \(level): throttling starts (20 fps, depth off\(level >= .critical ? ", mattes off" : ""))"
                    : "system pressure \(level): throttling ends")
                throttled = now
            } else {
                Log.emit(.info, "system pressure \(level)")
            }
        }
    }

    private func shoot(_ session: CaptureSession, camera: CameraDevice) async throws -> Report {
        let previewCount = PreviewCounter()
        let previews = session.previewFrames()
        let counting = Task { for await frame in previews { previewCount.add(frame.timestamp) } }
        let events = session.events
        let watching = Task { await Self.reportPressure(events) }
        defer { watching.cancel() }
        try await session.startRunning()
        // Let the stream fill the zero-shutter-lag ring, as a viewfinder would.
        try await Task.sleep(for: .milliseconds(500))
        var photos: [Photo] = []
        for index in 0..<count {
            if index > 0 { try await Task.sleep(for: .seconds(interval)) }
            let settings = PhotoSettings(quality: QualityPrioritization(rawValue: priority)!, mirrorsFrontCamera: mirrorFront)
            let result = try await session.capturePhoto(settings)
            photos.append(Photo(
                output: result.output.path, frameSequence: result.frameSequence, width: result.size.width,
                height: result.size.height, quality: result.quality.rawValue, shutterToFileSeconds: result.shutterToFileSeconds,
                stages: result.stages, notes: result.notes.merging(result.absenceReasons) { note, _ in note }))
        }
        let statistics = await session.streamStatistics
        await session.stopRunning()
        counting.cancel()
        return Report(
            camera: camera.name, cameraPath: camera.path, replay: camera.isReplay, photos: photos,
            previewFramesPerSecond: previewCount.framesPerSecond,
            frames: Frames(kept: statistics.kept, defective: statistics.defective, throttled: statistics.throttled))
    }
}
