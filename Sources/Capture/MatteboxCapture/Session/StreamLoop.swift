import Foundation
import MatteboxCore
import Synchronization

/// The thread that keeps a camera streaming: waits for each frame, drops
/// defective ones (flagged, truncated MJPEG) and, under thermal throttling,
/// those that come faster than the allowed rate, copies the rest into the
/// zero-shutter-lag ring, passes each to the frame taps (movie, Live Photo),
/// feeds live-view subscribers, and reports how the
/// stream ended (asked to stop, unplugged, or failed).
final class StreamLoop: Sendable {
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
    /// What the stream thread and the session share, behind a lock the compiler checks.
    private struct State {
        var stopRequested = false
        var minimumSpacing: UInt64 = 0
        var counters = Counters()
        var onEnd: (@Sendable ((any Error)?) -> Void)?
    }
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

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
        state.withLock { $0.onEnd = onEnd }
        let thread = Thread { [self] in run() }
        thread.name = "mattebox-capture \(camera.path)"
        thread.start()
    }

    /// Frames that come sooner than this after the last kept one are dropped (0: keep all).
    func limitFrameRate(to framesPerSecond: Double?) {
        state.withLock { $0.minimumSpacing = framesPerSecond.map { UInt64(1e9 / $0 * 0.9) } ?? 0 }
    }

    var statistics: Counters { state.withLock { $0.counters } }

    /// Stops the thread and the stream, and waits for both.
    func stop() {
        let wasRunning = state.withLock { state -> Bool in
            defer { state.stopRequested = true }
            return !state.stopRequested && state.onEnd != nil
        }
        if wasRunning { finished.wait() }
        stream.stop()
    }

    private func run() {
        var ending: (any Error)?
        let timeout = Int32(max(200, frameSeconds * 2000 + 100))
        while !state.withLock({ $0.stopRequested }) {
            do {
                guard let frame = try stream.nextFrame(timeoutMilliseconds: timeout) else { continue }
                keep(frame)
            } catch {
                ending = error
                break
            }
        }
        let (wasStopped, onEnd) = state.withLock { state -> (Bool, (@Sendable ((any Error)?) -> Void)?) in
            defer { state.stopRequested = true }
            return (state.stopRequested, state.onEnd)
        }
        finished.signal()
        if !wasStopped {
            stream.stop()
            onEnd?(ending)
        }
    }

    private func keep(_ frame: CapturedFrame) {
        let accepted = state.withLock { state -> Bool in
            if frame.defect != nil {
                state.counters.defective += 1
                return false
            }
            if state.minimumSpacing > 0, state.counters.kept > 0, frame.timestamp < state.counters.lastKept + state.minimumSpacing {
                state.counters.throttled += 1
                return false
            }
            if state.counters.kept == 0 { state.counters.firstKept = frame.timestamp }
            state.counters.kept += 1
            state.counters.lastKept = frame.timestamp
            return true
        }
        guard accepted else { return }
        ring.append(frame)
        taps?.send(frame)
        if preview.hasSubscribers { preview.send(PreviewFrame(frame: frame, decoder: decoder)) }
    }
}
