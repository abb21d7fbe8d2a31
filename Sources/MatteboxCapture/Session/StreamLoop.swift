import Foundation
import MatteboxCore

/// The thread that keeps a camera streaming: waits for each frame, drops
/// defective ones (flagged, truncated MJPEG) and, under thermal throttling,
/// those that come faster than the allowed rate, copies the rest into the
/// zero-shutter-lag ring, passes each to the frame taps (movie, Live Photo),
/// feeds live-view subscribers, and reports how the
/// stream ended (asked to stop, unplugged, or failed).
// Unchecked: its state is used by the one stream thread it runs on, and read by the session after that thread ended.
final class StreamLoop: @unchecked Sendable {
    /// What the loop counted since it started.
    struct Counters: Sendable {
        var kept = 0
        var defective = 0
        var throttled = 0
        var firstKept: UInt64 = 0
        var lastKept: UInt64 = 0

        /// Frames per second kept, from the first to the last kept frame.
        var framesPerSecond: Double {
            kept > 1 && lastKept > firstKept ? Double(kept - 1) / (Double(lastKept - firstKept) / 1e9) : 0
        }
    }

    let camera: CameraDevice
    let stream: any CameraStream
    private let ring: FrameRing
    private let preview: PreviewFanout
    private let taps: FrameTaps?
    private let lock = NSLock()
    private var stopRequested = false
    private var minimumSpacing: UInt64 = 0
    private var counters = Counters()
    private let finished = DispatchSemaphore(value: 0)
    private var onEnd: (@Sendable ((any Error)?) -> Void)?

    /// Opens the camera through its backend, sets the format and frame rate, and starts streaming.
    init(
        camera: CameraDevice, fourcc: FourCC, size: FrameSize, framesPerSecond: Double?, ring: FrameRing,
        preview: PreviewFanout, taps: FrameTaps? = nil
    ) throws {
        self.camera = camera
        self.ring = ring
        self.preview = preview
        self.taps = taps
        stream = try camera.backend.openStream(camera, fourcc: fourcc, size: size, framesPerSecond: framesPerSecond)
    }

    var format: StreamFormat { stream.format }
    var interval: FrameInterval? { stream.interval }
    var decoder: any FrameDecoder { stream.decoder }
    var frameSeconds: Double { interval?.seconds ?? 1.0 / 30 }

    func start(onEnd: @escaping @Sendable ((any Error)?) -> Void) {
        self.onEnd = onEnd
        let thread = Thread { [self] in run() }
        thread.name = "mattebox-capture \(camera.path)"
        thread.start()
    }

    /// Frames that come sooner than this after the last kept one are dropped (0: keep all).
    func limitFrameRate(to framesPerSecond: Double?) {
        lock.withLock { minimumSpacing = framesPerSecond.map { UInt64(1e9 / $0 * 0.9) } ?? 0 }
    }

    var statistics: Counters { lock.withLock { counters } }

    /// Stops the thread and the stream, and waits for both.
    func stop() {
        let wasRunning = lock.withLock { () -> Bool in
            defer { stopRequested = true }
            return !stopRequested && onEnd != nil
        }
        if wasRunning { finished.wait() }
        stream.stop()
    }

    private func run() {
        var ending: (any Error)?
        let timeout = Int32(max(200, frameSeconds * 2000 + 100))
        while !lock.withLock({ stopRequested }) {
            do {
                guard let frame = try stream.nextFrame(timeoutMilliseconds: timeout) else { continue }
                keep(frame)
            } catch {
                ending = error
                break
            }
        }
        let wasStopped = lock.withLock { () -> Bool in
            defer { stopRequested = true }
            return stopRequested
        }
        finished.signal()
        if !wasStopped {
            stream.stop()
            onEnd?(ending)
        }
    }

    private func keep(_ frame: CapturedFrame) {
        let accepted = lock.withLock { () -> Bool in
            if frame.defect != nil {
                counters.defective += 1
                return false
            }
            if minimumSpacing > 0, counters.kept > 0, frame.timestamp < counters.lastKept + minimumSpacing {
                counters.throttled += 1
                return false
            }
            if counters.kept == 0 { counters.firstKept = frame.timestamp }
            counters.kept += 1
            counters.lastKept = frame.timestamp
            return true
        }
        guard accepted else { return }
        ring.append(frame)
        taps?.send(frame)
        if preview.hasSubscribers { preview.send(PreviewFrame(frame: frame, decoder: decoder)) }
    }
}
