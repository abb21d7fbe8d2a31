import Foundation
import Synchronization

/// The Live Photo pre-roll: the last `seconds` of frames, compacted
/// (`MovieOutput.compact`), so a press can reach back before itself while
/// memory stays bounded by time and the frames' compressed size.
final class LivePhotoPreRoll: Sendable {
    let seconds: Double
    private let frames = Mutex<[CapturedFrame]>([])

    init(seconds: Double) { self.seconds = seconds }

    func append(_ frame: CapturedFrame) {
        let horizon = frame.timestamp &- UInt64(seconds * 1e9)
        frames.withLock { frames in
            frames.append(frame)
            // Keep one frame older than the horizon, so a press at its edge still has a frame before it.
            if let firstKept = frames.firstIndex(where: { $0.timestamp >= horizon }), firstKept > 1 {
                frames.removeFirst(firstKept - 1)
            }
        }
    }

    /// Frames from `start` up to and including `end` (CLOCK_MONOTONIC ns).
    func frames(from start: UInt64, through end: UInt64) -> [CapturedFrame] {
        frames.withLock { $0.filter { $0.timestamp >= start && $0.timestamp <= end } }
    }

    /// Bytes held now.
    var byteCount: Int { frames.withLock { $0.reduce(0) { $0 + $1.bytes.count } } }

    /// Seconds from the oldest frame held to the newest: `seconds` (or a frame more) once full.
    var heldSeconds: Double {
        frames.withLock { $0.count > 1 ? Double($0.last!.timestamp &- $0.first!.timestamp) / 1e9 : 0 }
    }

    func removeAll() { frames.withLock { $0 = [] } }
}

/// Gathers the frames after a Live Photo's press until its movie is long enough.
// Unchecked: frames behind an NSCondition, which the press waits on until the movie is long enough.
final class LivePhotoCollector: @unchecked Sendable {
    let id = UUID()
    let after: UInt64
    let until: UInt64
    private var frames: [CapturedFrame] = []
    private var complete = false
    private let condition = NSCondition()

    init(after: UInt64, until: UInt64) {
        self.after = after
        self.until = until
    }

    func offer(_ frame: CapturedFrame) {
        condition.withLock {
            guard !complete, frame.timestamp > after else { return }
            if frame.timestamp > until {
                complete = true
                condition.broadcast()
                return
            }
            frames.append(frame)
        }
    }

    /// Ends the collection early (the stream stopped).
    func close() {
        condition.withLock {
            complete = true
            condition.broadcast()
        }
    }

    /// Waits until the window is covered (or `timeout` seconds pass) and returns the frames.
    func wait(timeout: Double) -> [CapturedFrame] {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while !complete { if !condition.wait(until: deadline) { break } }
        complete = true
        return frames
    }
}

/// Every frame the stream keeps, passed on to what needs each one (unlike the
/// preview, which skips): the movie being recorded, the Live Photo pre-roll
/// and the Live Photos gathering their after-press frames. It outlives stream
/// restarts, so a recording continues when the stream is reopened.
final class FrameTaps: Sendable {
    private struct Taps {
        var recording: (any MovieRecording)?
        var recordingLimit: UInt64?
        var recordingStart: UInt64?
        var onLimit: (@Sendable () -> Void)?
        var preRoll: LivePhotoPreRoll?
        var compact: (@Sendable (CapturedFrame) -> CapturedFrame)?
        var collectors: [UUID: LivePhotoCollector] = [:]
    }

    private let taps = Mutex(Taps())

    /// Routes frames to `recording`; after `limit` seconds of frames, stops routing and calls `onLimit` once.
    func setRecording(_ recording: (any MovieRecording)?, limit: Double? = nil, onLimit: (@Sendable () -> Void)? = nil) {
        taps.withLock { taps in
            taps.recording = recording
            taps.recordingLimit = limit.map { UInt64($0 * 1e9) }
            taps.recordingStart = nil
            taps.onLimit = onLimit
        }
    }

    func setPreRoll(_ preRoll: LivePhotoPreRoll?, compact: (@Sendable (CapturedFrame) -> CapturedFrame)?) {
        taps.withLock { taps in
            taps.preRoll = preRoll
            taps.compact = compact
        }
    }

    var preRollBytes: Int { taps.withLock { $0.preRoll?.byteCount ?? 0 } }
    var preRollSeconds: Double { taps.withLock { $0.preRoll?.heldSeconds ?? 0 } }

    func add(_ collector: LivePhotoCollector) { taps.withLock { $0.collectors[collector.id] = collector } }
    func remove(_ collector: LivePhotoCollector) { taps.withLock { $0.collectors[collector.id] = nil } }

    /// The stream stopped: Live Photos waiting for frames get what they have.
    func streamStopped() {
        let (collectors, preRoll) = taps.withLock { (Array($0.collectors.values), $0.preRoll) }
        for collector in collectors { collector.close() }
        preRoll?.removeAll()
    }

    func send(_ frame: CapturedFrame) {
        let (recording, fireLimit, preRoll, compact, collectors) = taps.withLock { taps in
            var target = taps.recording
            var fireLimit: (@Sendable () -> Void)?
            if target != nil, let limit = taps.recordingLimit {
                let start = taps.recordingStart ?? frame.timestamp
                taps.recordingStart = start
                if frame.timestamp &- start >= limit {
                    target = nil
                    fireLimit = taps.onLimit
                    taps.onLimit = nil
                }
            }
            return (target, fireLimit, taps.preRoll, taps.compact, Array(taps.collectors.values))
        }
        recording?.append(frame)
        fireLimit?()
        guard preRoll != nil || !collectors.isEmpty else { return }
        let compacted = compact?(frame) ?? frame
        preRoll?.append(compacted)
        for collector in collectors { collector.offer(compacted) }
    }
}
