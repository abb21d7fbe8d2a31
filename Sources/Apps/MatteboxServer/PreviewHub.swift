import Foundation
import MatteboxCapture
import MatteboxImageIO
import MatteboxRuntime
import NIOCore
import Synchronization

/// The live preview shared by every viewer: one subscription to the session's
/// preview, each frame made a JPEG once (an MJPEG camera's own bytes pass
/// through untouched, as ustreamer does; other formats are encoded once
/// however many watch), and handed to each viewer as the newest frame only,
/// so a slow viewer skips frames instead of queueing them. Frames are not
/// touched at all while nobody watches. The number of viewers is capped.
final class PreviewHub: Sendable {
    struct Counters: Sendable, Codable {
        var passedThrough = 0
        var encoded = 0
        var viewers = 0
    }

    private struct Latest {
        var frame: ByteBuffer?
        var time = Date.distantPast
        var counters = Counters()
    }

    private let latest = Mutex(Latest())
    private let viewers: Subscribers<ByteBuffer>
    private let quality: Int

    init(maximumViewers: Int = 256, quality: Int = 80) {
        viewers = Subscribers(limit: maximumViewers, keepingNewest: 1)
        self.quality = quality
    }

    var maximumViewers: Int { viewers.limit }

    var counters: Counters {
        var counters = latest.withLock { $0.counters }
        counters.viewers = viewers.count
        return counters
    }

    /// A viewer's frames (the newest one first), or nil when as many viewers as allowed are watching.
    func subscribe() -> AsyncStream<ByteBuffer>? { viewers.subscribe(first: latest.withLock { $0.frame }) }

    /// The newest frame, if one came in the last half second, else the next one (nil after 2 s).
    func currentFrame() async -> ByteBuffer? {
        if let fresh = latest.withLock({ $0.time.timeIntervalSinceNow > -0.5 ? $0.frame : nil }) { return fresh }
        guard let frames = viewers.subscribe() else { return nil }
        return await withTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask {
                for await frame in frames { return frame }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(2))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Feeds viewers from `frames` until it ends.
    func run(_ frames: AsyncStream<PreviewFrame>) async {
        for await frame in frames {
            guard viewers.count > 0 else { continue }
            let jpeg: ByteBuffer
            if frame.isJPEG {
                jpeg = ByteBuffer(bytes: frame.frame.bytes)
            } else {
                do {
                    jpeg = ByteBuffer(data: try ImageEncoder.encode(try frame.rgbImage(), as: .jpeg, quality: quality))
                } catch {
                    Log.emit(.warning, "preview frame \(frame.sequence) could not be made a JPEG: \(error)")
                    continue
                }
            }
            latest.withLock { latest in
                latest.frame = jpeg
                latest.time = Date()
                if frame.isJPEG { latest.counters.passedThrough += 1 } else { latest.counters.encoded += 1 }
            }
            viewers.send(jpeg)
        }
    }

    /// Ends every viewer's stream and admits no more (the server is shutting down).
    func finish() { viewers.finish() }

    /// One part of a multipart/x-mixed-replace stream: its head, the shared JPEG
    /// itself (never copied per viewer), and the line end.
    static func part(_ jpeg: ByteBuffer, boundary: String) -> [ByteBuffer] {
        let head = "--\(boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.readableBytes)\r\n\r\n"
        return [ByteBuffer(string: head), jpeg, ByteBuffer(string: "\r\n")]
    }
}
