import ArgumentParser
import Foundation
import MatteboxCapture
import MatteboxCaptureService
import MatteboxCore
import MatteboxImageIO
import MatteboxMovie
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxPressure
import MatteboxRuntime

/// `mattebox capture`: takes photos from a camera (or a replay camera when
/// there is none), runs each through the pipeline and writes it, while a
/// live-view stream runs as a UI's would; prints each photo's shutter-to-file
/// time and the preview frame rate.
struct CaptureCommand: AsyncParsableCommand {
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
            no mattes at critical, paused at shutdown. \
            --live takes Live Photos: about 1.5 s before the press (kept compressed in a pre-roll) \
            and 1.5 s after it become a movie paired with the still: with --live-format apple \
            (the default) a MOV beside the HEIC/JPEG, both carrying the same content identifier \
            (Apple's maker note in the still, com.apple.quicktime.content.identifier in the movie) \
            and the still's moment marked in the movie (com.apple.quicktime.still-image-time); \
            with motion-photo one <name>.MP.jpg, or <name>.MP.heic with --format heic (Google's \
            Motion Photo: the MP4 after the image, found through its XMP); both writes the two.

            Each press secures its frame and writes the photo as taken at once (the proxy, in the \
            format the final will have); the pipeline runs behind, one photo at a time, and the \
            final replaces the proxy. So --count N --interval S presses on schedule while earlier \
            photos process; a photo with others waiting behind it is made at speed (a note says \
            so), unless --priority quality. A press is refused only when the photos waiting hold \
            --queue-memory. A run killed before its finals leaves the proxies and a record of them \
            (.mattebox-pending.jsonl): `capture --resume-pending -o DIR` finishes them.
            """)

    @OptionGroup var verbosity: Verbosity
    @OptionGroup var sources: CameraSources
    @OptionGroup var camera: CameraChoice
    @Option(help: "Frame size WxH the camera streams and photos are taken at (default: the camera's; `mattebox devices` lists the sizes).")
    var size: String?
    @Option(help: "Exposure time in microseconds, as rpicam-still's --shutter (sets auto_exposure=manual_mode and exposure_time_absolute, in 100 µs units).")
    var shutter: Double?
    @Option(help: "Gain, in the camera's own units (its `gain` control; `mattebox controls` shows the range).") var gain: String?
    @Option(help: "White balance: auto, or a colour temperature in kelvin (white_balance_automatic, white_balance_temperature).")
    var awb: String?
    @Option(help: "Photos to take.") var count = 1
    @Option(help: "Seconds between presses, kept while earlier photos are processed.") var interval: Double = 1
    @OptionGroup var queue: CaptureQueueOption
    @Flag(help: "Take no photo: finish the photos an earlier run left as proxies in -o (killed before their finals), with --pipeline.")
    var resumePending = false
    @Option(help: "Pipeline file (YAML), named pipeline, or stages joined by ! (as for process); default: turn photos upright.", completion: Completions.pipelines)
    var pipeline: String?
    @Option(help: "Quality prioritisation: speed, balanced or quality.") var priority: String = "balanced"
    @Option(help: ArgumentHelp("JPEG or HEIF quality, 1-100 (default: \(OutputFormat.defaultQualities)).")) var quality: String?
    @Option(help: "Output format: \(ImageContainers.writableNames), any case or alias; default: \(PhotoWriter.defaultFormatRule).", completion: Completions.formats)
    var format: String?
    @Option(name: .shortAndLong, help: "Folder to write photos to (created if missing).") var output: String
    @Flag(help: "Mirror front camera photos as the preview shows them.") var mirrorFront = false
    @Flag(help: "Take Live Photos: a still plus a movie of about 1.5 s either side of the press.") var live = false
    @Option(help: "How Live Photos are stored: apple (HEIC/JPEG + MOV), motion-photo (one .MP.jpg or .MP.heic) or both.")
    var liveFormat: String = "apple"
    @Option(help: "Live Photo movie codec: h264 or hevc.") var liveCodec: String = "h264"
    @Flag(help: "Take photos at full speed with every stage whatever the thermal state.") var ignorePressure = false
    @Flag(help: "Print a JSON report instead of text.") var json = false

    struct Report: Encodable {
        var camera: String
        var cameraPath: String
        var replay: Bool
        var photos: [Photo]
        /// The interval asked for and the presses' actual spacing (mean and largest), in seconds.
        var interval: Interval?
        var previewFramesPerSecond: Double
        var frames: Frames
        /// Bytes the Live Photo pre-roll held at the end (--live).
        var livePhotoPreRollBytes: Int?
    }

    struct Interval: Encodable {
        var asked: Double
        var mean: Double
        var largest: Double
    }

    struct Photo: Encodable {
        var output: String
        /// The press, in seconds after the first.
        var pressedAt: Double
        /// Press to its frame secured from the zero-shutter-lag ring, and to the photo as taken on
        /// disk (the proxy, replaced by `output`).
        var pressToFrameSeconds: Double
        var pressToProxySeconds: Double
        var frameSequence: UInt32
        /// CLOCK_MONOTONIC nanoseconds of the press and of the frame taken (the driver's timestamp).
        var pressTime: UInt64
        var frameTimestamp: UInt64
        var width: Int
        var height: Int
        var quality: String
        var shutterToFileSeconds: Double
        var stages: [StageReport]
        /// What stages said, and why images were not made (as `process` reports them).
        var notes: [String: String]
        /// A Live Photo's movie files and the identifier pairing them with the still.
        var livePhoto: LivePhoto?
        /// Why the photo has no final (its proxy, when one was written, is kept at `output`).
        var error: String?
    }

    struct LivePhoto: Encodable {
        var contentIdentifier: String
        var files: [String]
        var error: String?
    }

    struct Frames: Encodable {
        var kept: Int
        var defective: Int
        var throttled: Int
    }

    func validate() throws {
        guard count >= 1 else { throw ValidationError("--count must be at least 1") }
        if let size, FrameSize(parsing: size) == nil { throw ValidationError("--size takes WIDTHxHEIGHT, e.g. 1280x960, not \(size)") }
        if let shutter, !(shutter > 0) { throw ValidationError("--shutter takes microseconds, more than 0") }
        if let awb, awb != "auto", Int(awb).map({ $0 > 0 }) != true {
            throw ValidationError("--awb takes auto or a colour temperature in kelvin (e.g. 5600), not \(awb)")
        }
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
        guard let livePhotoFormat = MovieFileOutput.LivePhotoFormat(rawValue: liveFormat) else {
            throw ValidationError("--live-format takes apple, motion-photo or both, not \(liveFormat)")
        }
        guard MovieSettings.Codec(rawValue: liveCodec) != nil else { throw ValidationError("--live-codec takes h264 or hevc, not \(liveCodec)") }
        if live, livePhotoFormat != .apple, let format, let chosen = OutputFormat(rawValue: format), ![.jpeg, .heic].contains(chosen) {
            throw ValidationError("a Motion Photo is a JPEG or HEIC: --live-format \(liveFormat) needs --format jpeg or heic (or no --format)")
        }
    }

    /// --shutter, --gain and --awb as control requests (`CameraDevice.setControls` sets modes first).
    private var exposureControls: [(name: String, value: String)] {
        var requests: [(name: String, value: String)] = []
        if let shutter {
            requests += [("auto_exposure", "manual_mode"), ("exposure_time_absolute", String(Int((shutter / 100).rounded())))]
        }
        if let gain { requests.append(("gain", gain)) }
        if let awb {
            requests += awb == "auto"
                ? [("white_balance_automatic", "1")] : [("white_balance_automatic", "0"), ("white_balance_temperature", awb)]
        }
        return requests
    }

    /// The still's format: --format, else JPEG for Motion Photos, else the writer's rule.
    private var outputFormat: OutputFormat? {
        if let format { return OutputFormat(rawValue: format) }
        return live && liveFormat != MovieFileOutput.LivePhotoFormat.apple.rawValue ? .jpeg : nil
    }

    func run() async throws {
        if resumePending { return try finishPending() }
        let cameras = try sources.discover()
        let camera = try self.camera.choose(from: cameras)
        // rpicam-still's exposure flags, onto the camera's V4L2 controls; a camera without one refuses, naming it.
        if !exposureControls.isEmpty { try camera.setControls(exposureControls) }
        let directory = URL(fileURLWithPath: output)
        try OutputFolder.prepare(directory)
        let delivery = try CaptureService.makeDelivery(
            pipeline: try PipelineSource.load(pipeline, registry: PluginRegistry.discoverForThisExecutable()),
            registry: PluginRegistry.discoverForThisExecutable(),
            writer: PhotoWriter(directory: directory, format: outputFormat, quality: quality.flatMap { Int($0) }))
        let left = delivery.pendingProxies().count
        if left > 0 {
            Log.emit(.warning, "\(left) photo(s) in \(directory.path) were left as proxies by an earlier run; "
                + "`mattebox capture --resume-pending -o \(output)` finishes them")
        }
        let session = try CaptureSession(
            cameras: cameras, camera: camera, delivery: delivery,
            movieOutput: live
                ? MovieFileOutput(
                    directory: directory, settings: MovieSettings(codec: MovieSettings.Codec(rawValue: liveCodec)!),
                    livePhotoFormat: MovieFileOutput.LivePhotoFormat(rawValue: liveFormat)!) : nil,
            pressureMonitor: ignorePressure ? nil : PressureMonitor(), queueMemory: queue.bytes)
        let report = try await shoot(session, camera: camera)
        let failed = report.photos.filter { $0.error != nil }.count
        defer { if failed > 0 { Foundation.exit(1) } }
        if json { return try JSONOutput.print(report) }
        for photo in report.photos where photo.error != nil {
            Log.emit(.error, "\(photo.output.isEmpty ? "a press" : photo.output): \(photo.error!)")
        }
        guard !verbosity.quiet else { return }  // -q: nothing but errors
        for photo in report.photos where photo.error == nil {
            print("\(photo.output)  \(photo.width)x\(photo.height)  frame \(photo.frameSequence)  "
                + String(format: "pressed at %.2f s, taken (proxy) %.3f s, final %.3f s", photo.pressedAt, photo.pressToProxySeconds,
                         photo.shutterToFileSeconds))
            for line in NoteLines.render(photo.notes) { print("      \(line)") }
        }
        if let interval = report.interval {
            print(String(format: "presses %.3f s apart (asked %.3f s; the largest gap %.3f s)", interval.mean, interval.asked, interval.largest))
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

    private static func photo(_ result: CaptureResult, pressedAt: Double, contentIdentifier: String?) -> Photo {
        let motionPhoto = result.livePhotoMovie.first { $0.deletingPathExtension().pathExtension == "MP" }
        return Photo(
            output: (motionPhoto ?? result.output).path, pressedAt: pressedAt, pressToFrameSeconds: result.pressToFrameSeconds ?? 0,
            pressToProxySeconds: result.pressToProxySeconds ?? 0,
            frameSequence: result.frameSequence, pressTime: result.pressTime, frameTimestamp: result.frameTimestamp,
            width: result.size.width, height: result.size.height,
            quality: result.quality.rawValue, shutterToFileSeconds: result.shutterToFileSeconds,
            stages: result.stages, notes: result.notes.merging(result.absenceReasons) { note, _ in note },
            livePhoto: contentIdentifier.map {
                LivePhoto(contentIdentifier: $0, files: result.livePhotoMovie.map(\.path), error: result.livePhotoError)
            })
    }

    /// A press that gave no final: refused, failed before its proxy, or failed in processing.
    private static func failed(_ error: any Error, pressedAt: Double, taken: TakenPhoto?) -> Photo {
        Photo(
            output: taken?.proxy.path ?? "", pressedAt: pressedAt, pressToFrameSeconds: taken?.pressToFrameSeconds ?? 0,
            pressToProxySeconds: taken?.pressToProxySeconds ?? 0,
            frameSequence: taken?.frameSequence ?? 0, pressTime: taken?.pressTime ?? 0, frameTimestamp: taken?.frameTimestamp ?? 0,
            width: taken?.size.width ?? 0, height: taken?.size.height ?? 0,
            quality: taken?.quality.rawValue ?? "", shutterToFileSeconds: 0, stages: [], notes: [:], error: "\(error)")
    }

    /// --resume-pending: the proxies an earlier run left in -o, finished with --pipeline.
    private func finishPending() throws {
        let directory = URL(fileURLWithPath: output)
        let delivery = try CaptureService.makeDelivery(
            pipeline: try PipelineSource.load(pipeline, registry: PluginRegistry.discoverForThisExecutable()),
            registry: PluginRegistry.discoverForThisExecutable(),
            writer: PhotoWriter(directory: directory, format: outputFormat, quality: quality.flatMap { Int($0) }))
        var finished: [[String: String]] = []
        var failures = 0
        for proxy in delivery.pendingProxies() {
            do {
                let delivered = try delivery.finishPending(proxy) {}
                finished.append(["proxy": proxy.path, "output": delivered.output.path])
                if !json, !verbosity.quiet { print("\(delivered.output.path)  finished") }
            } catch {
                failures += 1
                finished.append(["proxy": proxy.path, "error": "\(error)"])
                Log.emit(.error, "\(error)")
            }
        }
        if json { try JSONOutput.print(["finished": finished]) } else if finished.isEmpty, !verbosity.quiet {
            print("nothing pending in \(directory.path)")
        }
        if failures > 0 { throw ExitCode(1) }
    }

    private func shoot(_ session: CaptureSession, camera: CameraDevice) async throws -> Report {
        let previewCount = PreviewCounter()
        let previews = session.previewFrames()
        let counting = Task { for await frame in previews { previewCount.add(frame.timestamp) } }
        let events = session.events
        let watching = Task { await Self.reportPressure(events) }
        defer { watching.cancel() }
        if let size = size.flatMap(FrameSize.init(parsing:)) {
            let current = await session.configuration
            try await session.setFormat(current.fourcc, size: size)
        }
        try await session.startRunning()
        // Let the stream fill the zero-shutter-lag ring, as a viewfinder would.
        if live { try await session.setLivePhotoCaptureEnabled(true) }
        try await Task.sleep(for: .milliseconds(live ? 1700 : 500))
        // Presses on a fixed schedule, --interval apart, whatever earlier photos are doing: each returns
        // once its frame is secured and its proxy written, and the finals are gathered at the end.
        let priority = QualityPrioritization(rawValue: self.priority)!
        let start = MonotonicClock.now()
        var presses: [(pressedAt: Double, taken: Task<TakenPhoto, any Error>, identifier: String?)] = []
        for index in 0..<count {
            let due = start + UInt64(Double(index) * interval * 1e9)
            let now = MonotonicClock.now()
            if due > now { try await Task.sleep(for: .nanoseconds(Int64(due - now))) }
            var settings = PhotoSettings(quality: priority, mirrorsFrontCamera: mirrorFront)
            if live { settings.livePhotoContentIdentifier = UUID().uuidString }
            let pressedAt = Double(settings.pressTime &- start) / 1e9
            let press = settings
            presses.append((pressedAt, Task { try await session.takePhoto(press) }, settings.livePhotoContentIdentifier))
        }
        var photos: [Photo] = []
        for press in presses {
            switch await press.taken.result {
            case .failure(let error): photos.append(Self.failed(error, pressedAt: press.pressedAt, taken: nil))
            case .success(let taken):
                do {
                    photos.append(Self.photo(try await taken.result(), pressedAt: press.pressedAt, contentIdentifier: press.identifier))
                } catch {
                    photos.append(Self.failed(error, pressedAt: press.pressedAt, taken: taken))
                }
            }
        }
        let gaps = zip(presses.dropFirst(), presses).map { $0.pressedAt - $1.pressedAt }
        let statistics = await session.streamStatistics
        let preRoll = live ? await session.livePhotoPreRollBytes : nil
        await session.stopRunning()
        counting.cancel()
        return Report(
            camera: camera.name, cameraPath: camera.path, replay: camera.isReplay, photos: photos,
            interval: gaps.isEmpty ? nil : Interval(asked: interval, mean: gaps.reduce(0, +) / Double(gaps.count), largest: gaps.max()!),
            previewFramesPerSecond: previewCount.framesPerSecond,
            frames: Frames(kept: statistics.kept, defective: statistics.defective, throttled: statistics.throttled),
            livePhotoPreRollBytes: preRoll)
    }
}
