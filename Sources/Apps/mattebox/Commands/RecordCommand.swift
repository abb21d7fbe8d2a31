import ArgumentParser
import Foundation
import MatteboxCapture
import MatteboxCaptureService
import MatteboxMovie
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxPressure
import MatteboxRuntime

/// `mattebox record`: records a movie from a camera (AVCam's movie mode)
/// through FFmpeg, until --duration, Ctrl-C, an unplug or a thermal shutdown.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a movie from a camera (H.264 or HEVC in MP4 or MOV).",
        discussion: """
            Frames keep the times the camera gave them, so a dropped frame makes a longer frame \
            rather than a faster movie. The camera's mounting is written as the movie's rotation \
            (container metadata); a front camera's movie is natural unless --mirror-front. While \
            recording, the file is <name>.recording.mp4, written in fragments of about a second: \
            a kill, an unplug or a full disk leaves a movie that players read up to the last \
            fragment. When the movie is finished it is renamed to <name>.mp4. Recording ends at \
            --duration, on Ctrl-C (SIGINT) or SIGTERM, when the camera is unplugged, or at a \
            thermal shutdown (the movie is finished first). The frame rate is never throttled \
            while a movie records.
            """)

    @OptionGroup var verbosity: Verbosity
    @OptionGroup var sources: CameraSources
    @OptionGroup var camera: CameraChoice
    @Option(help: "Seconds to record (default: until Ctrl-C).") var duration: Double?
    @Option(help: "Video codec: h264 (libx264) or hevc (libx265).") var codec: String = "h264"
    @Option(help: "Quality: low, medium or high (x264 CRF 28, 23, 18; x265 5 higher).") var quality: String = "medium"
    @Option(help: "Container: mp4 or mov.") var container: String = "mp4"
    @Option(help: "Encoder speed preset (x264/x265: ultrafast ... veryslow).") var preset: String = "veryfast"
    @Option(help: "Frame size WxH the camera streams (default: its largest up to 1280 wide).") var size: String?
    @Option(help: "Frames per second to ask the camera for.") var fps: Double?
    @Option(name: .shortAndLong, help: "Folder to write the movie to (created if missing).") var output: String
    @Flag(help: "Show a front camera's movie mirrored, as its preview was.") var mirrorFront = false
    @Flag(help: "Ignore the thermal state (no shutdown stop).") var ignorePressure = false
    @Flag(help: "Print a JSON report instead of text.") var json = false

    func validate() throws {
        guard MovieSettings.Codec(rawValue: codec) != nil else { throw ValidationError("--codec takes h264 or hevc, not \(codec)") }
        guard MovieSettings.Quality(rawValue: quality) != nil else {
            throw ValidationError("--quality takes low, medium or high, not \(quality)")
        }
        guard MovieSettings.Container(rawValue: container) != nil else {
            throw ValidationError("--container takes mp4 or mov, not \(container)")
        }
        guard MovieSettings.presets.contains(preset) else {
            throw ValidationError("--preset takes \(MovieSettings.presets.joined(separator: ", ")), not \(preset)\(Suggestion.clause(for: preset, among: MovieSettings.presets))")
        }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be more than 0 seconds") }
        if let size, FrameSize(parsing: size) == nil { throw ValidationError("--size takes WIDTHxHEIGHT, e.g. 1280x960, not \(size)") }
        if let fps, !(fps > 0) { throw ValidationError("--fps must be more than 0") }
    }

    struct Report: Encodable {
        var camera: String
        var cameraPath: String
        var replay: Bool
        var codec: String
        var preset: String
        var size: String
        var movie: RecordedMovie
    }

    func run() async throws {
        let cameras = try sources.discover()
        let camera = try self.camera.choose(from: cameras)
        let directory = URL(fileURLWithPath: output)
        try OutputFolder.prepare(directory)
        let settings = MovieSettings(
            codec: MovieSettings.Codec(rawValue: codec)!, quality: MovieSettings.Quality(rawValue: quality)!,
            container: MovieSettings.Container(rawValue: container)!, preset: preset)
        let session = try CaptureService.makeSession(
            cameras: cameras, camera: camera, pipeline: nil, registry: PluginRegistry.discoverForThisExecutable(),
            writer: PhotoWriter(directory: directory, format: nil), movieOutput: MovieFileOutput(directory: directory, settings: settings),
            pressureMonitor: ignorePressure ? nil : PressureMonitor())
        // Past a file-size limit, a write should fail (EFBIG) and the movie be kept, not the process killed.
        signal(SIGXFSZ, SIG_IGN)
        let report = try await record(session, camera: camera, settings: settings)
        let movie = report.movie
        if json {
            try JSONOutput.print(report)
        } else if !verbosity.quiet {
            print("\(movie.path)  \(report.size)  \(movie.frames) frames  " + String(format: "%.2f s", movie.duration)
                + "  \(report.codec) (\(report.preset))  dropped \(movie.droppedFrames)  ended: \(movie.ending.rawValue)")
        }
        if let error = movie.error { Log.emit(.error, "\(error); what was written is kept in \(movie.path)") }
        if !movie.complete { throw ExitCode(1) }
    }

    private func record(_ session: CaptureSession, camera: CameraDevice, settings: MovieSettings) async throws -> Report {
        let events = session.events
        if size != nil || fps != nil {
            let current = await session.configuration
            try await session.setFormat(
                current.fourcc, size: size.flatMap(FrameSize.init(parsing:)) ?? current.size, framesPerSecond: fps)
        }
        try await session.startRunning()
        guard await session.state == .running else {
            throw MatteboxError("\(camera.path): the camera is not streaming (\(await session.state)); nothing recorded")
        }
        // Ctrl-C and SIGTERM finish the movie; they are caught before the file exists.
        let stoppers = [SIGINT, SIGTERM].map { signalNumber in
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { Task { await session.stopRecording(.stopped) } }
            source.resume()
            return source
        }
        defer { stoppers.forEach { $0.cancel() } }
        let path = try await session.startRecording(maxSeconds: duration, mirrorsFrontCamera: mirrorFront)
        if !json { Log.emit(.info, "recording to \(path)") }
        var finished: RecordedMovie?
        for await event in events {
            if case .didFinishRecording(let movie) = event {
                finished = movie
                break
            }
        }
        let configuration = await session.configuration
        await session.stopRunning()
        guard let finished else { throw MatteboxError("the session ended without finishing the movie") }
        return Report(
            camera: camera.name, cameraPath: camera.path, replay: camera.isReplay, codec: settings.codec.rawValue,
            preset: settings.preset, size: configuration.size.description, movie: finished)
    }
}
