import Foundation
import MatteboxRuntime

/// A movie being recorded (AVCaptureMovieFileOutput's recording): frames are
/// queued from the camera's thread without waiting and encoded on the
/// recorder's own thread. The file is written under a `.recording` name as
/// fragmented MP4/MOV, so a kill, an unplug or a full disk leaves a movie
/// players read up to its last fragment, and is renamed into place when it is
/// finished. A queue that overflows (the encoder cannot keep up) drops frames
/// and counts them.
// Unchecked: frames are queued under an NSCondition (it waits); one encoder thread owns the FFmpeg contexts until `finish`.
package final class MovieRecorder: @unchecked Sendable {
    /// What a finished recording is.
    package struct Outcome: Sendable {
        /// The finished movie, or the `.recording` file that holds what was written when it could not be finished.
        package var path: String
        package var complete: Bool
        package var frames: Int
        package var droppedFrames: Int
        /// From the first frame's capture time to the last's, in seconds.
        package var duration: Double
        package var error: String?
    }

    package let path: String
    package let writingPath: String
    private let writer: MovieWriter
    private let condition = NSCondition()
    private var queue: [MovieFrame] = []
    private var closing = false
    private var dropped = 0
    private var failure: String?
    private var firstTimestamp: UInt64?
    private var lastTimestamp: UInt64?
    private let maxQueued: Int
    private let done = DispatchSemaphore(value: 0)

    /// Starts a recording to `path` (written as `<name>.recording.<ext>` until finished).
    private let onFailure: (@Sendable (String) -> Void)?

    /// `onFailure` is called once, from the encoder's thread, when writing fails
    /// (a full disk): the owner should then `finish`, which keeps what was written.
    package init(
        path: String, format: MovieFormat, settings: MovieSettings, metadata: [(String, String)] = [], maxQueuedFrames: Int = 45,
        onFailure: (@Sendable (String) -> Void)? = nil
    ) throws {
        self.onFailure = onFailure
        guard !FileManager.default.fileExists(atPath: path) else {
            throw MatteboxError("\(path) already exists; a recording never replaces a file")
        }
        self.path = path
        let url = URL(fileURLWithPath: path)
        writingPath = url.deletingPathExtension().appendingPathExtension("recording").appendingPathExtension(url.pathExtension).path
        writer = try MovieWriter(path: writingPath, format: format, settings: settings, fragmented: true, metadata: metadata)
        maxQueued = max(2, maxQueuedFrames)
        let thread = Thread { [self] in encodeLoop() }
        thread.name = "mattebox-movie"
        thread.start()
    }

    /// Queues a frame; never blocks the caller. A full queue drops the frame.
    package func append(_ frame: MovieFrame) {
        condition.withLock {
            guard !closing else { return }
            if queue.count >= maxQueued {
                dropped += 1
                return
            }
            queue.append(frame)
            condition.signal()
        }
    }

    /// Frames accepted so far (queued or encoded) and dropped.
    package var counts: (frames: Int, dropped: Int) {
        condition.withLock { (writer.frameCount + queue.count, dropped) }
    }

    /// Seconds from the first frame to the newest one queued.
    package var recordedSeconds: Double {
        condition.withLock {
            guard let first = firstTimestamp, let last = lastTimestamp else { return 0 }
            return Double(last - first) / 1e9
        }
    }

    /// Encodes what is queued, finishes the file and renames it into place;
    /// when that fails, the `.recording` file stays with what its fragments hold.
    package func finish() -> Outcome {
        condition.withLock {
            closing = true
            condition.signal()
        }
        done.wait()
        var problem = condition.withLock { failure }
        var complete = false
        if problem == nil {
            do {
                try writer.finish()
                if link(writingPath, path) == 0 {
                    unlink(writingPath)
                    complete = true
                } else {
                    problem = "cannot move \(writingPath) to \(path): \(SystemError.describe(errno))"
                }
            } catch {
                problem = "\(error)"
            }
        } else {
            writer.abandon()
        }
        return condition.withLock {
            let duration = firstTimestamp.flatMap { first in lastTimestamp.map { Double($0 - first) / 1e9 } } ?? 0
            return Outcome(
                path: complete ? path : writingPath, complete: complete, frames: writer.frameCount, droppedFrames: dropped,
                duration: duration, error: problem)
        }
    }

    private func encodeLoop() {
        while true {
            let next: MovieFrame? = condition.withLock {
                while queue.isEmpty && !closing { condition.wait() }
                return queue.isEmpty ? nil : queue.removeFirst()
            }
            guard let frame = next else { break }
            do {
                if try writer.append(frame) {
                    condition.withLock {
                        if firstTimestamp == nil { firstTimestamp = frame.timestamp }
                        lastTimestamp = frame.timestamp
                    }
                }
            } catch {
                condition.withLock {
                    failure = "\(error)"
                    closing = true
                    queue.removeAll()
                }
                onFailure?("\(error)")
                break
            }
        }
        done.signal()
    }
}
