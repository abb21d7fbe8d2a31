import Foundation
import MatteboxCapture
import MatteboxCaptureService
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxPressure
import MatteboxTestSupport

/// Two emulated cameras behind a sysfs tree made by the test, as a laptop
/// with a front camera (its driver states the position) and a back camera
/// (known from sysfs physical_location, with a by-id link).
struct CaptureRig {
    let io = EmulatedV4L2()
    let root: URL
    let output: URL
    static let front = "/dev/video0"
    static let back = "/dev/video2"

    init(fourcc: FourCC = .mjpeg) throws {
        root = try TestEnvironment.scratchDirectory("capture-root")
        output = try TestEnvironment.scratchDirectory("capture-out")
        io.add(NumberedPictures.camera("Front Cam", position: .front, fourcc: fourcc), at: Self.front)
        io.add(NumberedPictures.camera("Back Cam", position: nil, rotation: 90, fourcc: fourcc), at: Self.back)
        try write("Front Cam", "sys/class/video4linux/video0/name")
        try write("Back Cam", "sys/class/video4linux/video2/name")
        try write("back", "sys/class/video4linux/video2/device/physical_location/panel")
        let byID = root.appendingPathComponent("dev/v4l/by-id")
        try FileManager.default.createDirectory(at: byID, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: byID.appendingPathComponent("usb-Acme_Back_Cam_42-video-index0").path, withDestinationPath: "../../video2")
    }

    func write(_ text: String, _ path: String) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try (text + "\n").write(to: url, atomically: true, encoding: .utf8)
    }

    var cameras: [CameraDevice] { CameraDiscovery(root: root, io: io).cameras() }

    func session(
        pipeline: String? = "stages:\n  - plugin: org.mattebox.orientation\n", camera: CameraDevice? = nil,
        monitor: PressureMonitor? = nil, policy: CaptureSession.PressurePolicy = .init(), format: OutputFormat = .png,
        movies: MovieFileOutput? = nil
    ) throws -> CaptureSession {
        try CaptureService.makeSession(
            cameras: cameras, camera: camera, pipeline: pipeline.map { PipelineSource(text: $0, path: "test.yaml") },
            registry: BuiltPlugins.registry, writer: PhotoWriter(directory: output, format: format), movieOutput: movies,
            pressureMonitor: monitor, pressurePolicy: policy)
    }
}

/// Collects a session's events as they come, for tests to wait on.
final class EventLog: @unchecked Sendable {
    private var events: [CaptureEvent] = []
    private let lock = NSLock()

    init(_ session: CaptureSession) {
        Task { [self] in
            for await event in session.events { lock.withLock { events.append(event) } }
        }
    }

    var all: [CaptureEvent] { lock.withLock { events } }

    /// Waits up to `timeout` seconds for an event matching `predicate`.
    @discardableResult
    func wait(_ timeout: Double = waitLimit, for predicate: (CaptureEvent) -> Bool) async -> Bool {
        await eventually(timeout) { all.contains(where: predicate) }
    }
}

/// How long the capture tests wait at most for something to happen. Long,
/// because it is only a limit: in a full parallel test run, tests that wait
/// on child processes can hold every thread of Swift's cooperative pool for
/// a minute, and the session's tasks wait too.
let waitLimit: Double = 90

/// Polls `condition` (which may ask the session) every 20 ms for up to `timeout` seconds.
func eventually(_ timeout: Double = waitLimit, _ condition: () async -> Bool) async -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while Date() < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}

/// Polls `condition` every 20 ms for up to `timeout` seconds.
func eventually(_ timeout: Double = waitLimit, _ condition: () -> Bool) async -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}
