import Foundation

/// Zero shutter lag: the most recent good frames, copied out of the driver's
/// buffers so those go straight back to the camera. A photo is made from the
/// frame that was being exposed when the shutter was pressed, never a later
/// one, so the moment the user saw is the moment they get.
// Unchecked: frames behind an NSCondition, which a press waits on for the next frame.
package final class FrameRing: @unchecked Sendable {
    package let capacity: Int
    private var frames: [CapturedFrame] = []
    private let lock = NSCondition()

    package init(capacity: Int = 6) { self.capacity = max(2, capacity) }

    package func append(_ frame: CapturedFrame) {
        lock.lock()
        frames.append(frame)
        if frames.count > capacity { frames.removeFirst(frames.count - capacity) }
        lock.broadcast()
        lock.unlock()
    }

    package func removeAll() { lock.withLock { frames = [] } }

    package var snapshot: [CapturedFrame] { lock.withLock { frames } }

    /// The frames that began exposing at or before `time` (CLOCK_MONOTONIC ns), oldest first,
    /// with `held` among them: frames taken from the ring earlier (at a shutter press), which it
    /// may have dropped since.
    package func frames(atOrBefore time: UInt64, with held: [CapturedFrame] = []) -> [CapturedFrame] {
        let current = lock.withLock { frames.filter { $0.timestamp <= time } }
        let dropped = held.filter { frame in frame.timestamp <= time && !current.contains { $0.timestamp == frame.timestamp } }
        return (dropped + current).sorted { $0.timestamp < $1.timestamp }
    }

    /// The latest frame that began exposing at or before `time`, in the ring or `held`.
    package func latest(atOrBefore time: UInt64, with held: [CapturedFrame] = []) -> CapturedFrame? {
        frames(atOrBefore: time, with: held).last
    }

    /// Frames that began exposing within `window` ns before `time`, up to it, in the ring or `held`.
    package func frames(within window: UInt64, before time: UInt64, with held: [CapturedFrame] = []) -> [CapturedFrame] {
        frames(atOrBefore: time, with: held).filter { $0.timestamp + window >= time }
    }

    /// Waits up to `timeout` seconds for any frame to be in the ring; false if none came.
    package func waitForFrame(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        lock.lock()
        defer { lock.unlock() }
        while frames.isEmpty { if !lock.wait(until: deadline) { return !frames.isEmpty } }
        return true
    }

    /// Waits up to `timeout` seconds for the first frame after `time`.
    package func firstFrame(after time: UInt64, timeout: Double) -> CapturedFrame? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        lock.lock()
        defer { lock.unlock() }
        while true {
            if let frame = frames.first(where: { $0.timestamp > time }) { return frame }
            if !lock.wait(until: deadline) { return frames.first { $0.timestamp > time } }
        }
    }
}
