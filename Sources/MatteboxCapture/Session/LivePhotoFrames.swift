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
// Unchecked: taps behind an NSLock.
final class FrameTaps: @unchecked Sendable {
    private let lock = NSLock()
    private var recording: (any MovieRecording)?
    private var recordingLimit: UInt64?
    private var recordingStart: UInt64?
    private var onLimit: (@Sendable () -> Void)?
    private var preRoll: LivePhotoPreRoll?
    private var compact: (@Sendable (CapturedFrame) -> CapturedFrame)?
    private var collectors: [UUID: LivePhotoCollector] = [:]

    /// Routes frames to `recording`; after `limit` seconds of frames, stops routing and calls `onLimit` once.
    func setRecording(_ recording: (any MovieRecording)?, limit: Double? = nil, onLimit: (@Sendable () -> Void)? = nil) {
        lock.withLock {
            self.recording = recording
            recordingLimit = limit.map { UInt64($0 * 1e9) }
            recordingStart = nil
            self.onLimit = onLimit
        }
    }

    func setPreRoll(_ preRoll: LivePhotoPreRoll?, compact: (@Sendable (CapturedFrame) -> CapturedFrame)?) {
        lock.withLock {
            self.preRoll = preRoll
            self.compact = compact
        }
    }

    var preRollBytes: Int { lock.withLock { preRoll?.byteCount ?? 0 } }
    var preRollSeconds: Double { lock.withLock { preRoll?.heldSeconds ?? 0 } }

    func add(_ collector: LivePhotoCollector) { lock.withLock { collectors[collector.id] = collector } }
    func remove(_ collector: LivePhotoCollector) { lock.withLock { collectors[collector.id] = nil } }

    /// The stream stopped: Live Photos waiting for frames get what they have.
    func streamStopped() {
        let (collectors, preRoll) = lock.withLock { (Array(self.collectors.values), self.preRoll) }
        for collector in collectors { collector.close() }
        preRoll?.removeAll()
    }

    func send(_ frame: CapturedFrame) {
        var fireLimit: (@Sendable () -> Void)?
        let (recording, preRoll, compact, collectors) = lock.withLock { () -> (
            (any MovieRecording)?, LivePhotoPreRoll?, (@Sendable (CapturedFrame) -> CapturedFrame)?, [LivePhotoCollector]
        ) in
            var target = self.recording
            if target != nil, let limit = recordingLimit {
                let start = recordingStart ?? frame.timestamp
                recordingStart = start
                if frame.timestamp &- start >= limit {
                    target = nil
                    fireLimit = onLimit
                    onLimit = nil
                }
            }
            return (target, self.preRoll, self.compact, Array(self.collectors.values))
        }
        recording?.append(frame)
        fireLimit?()
        guard preRoll != nil || !collectors.isEmpty else { return }
        let compacted = compact?(frame) ?? frame
        preRoll?.append(compacted)
        for collector in collectors { collector.offer(compacted) }
    }
}
