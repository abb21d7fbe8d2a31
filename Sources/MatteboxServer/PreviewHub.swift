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

    private struct State {
        var viewers: [UUID: AsyncStream<ByteBuffer>.Continuation] = [:]
        var latest: ByteBuffer?
        var latestTime = Date.distantPast
        var counters = Counters()
        var closed = false
    }

    private let state = Mutex(State())
    let maximumViewers: Int
    private let quality: Int

    init(maximumViewers: Int = 256, quality: Int = 80) {
        self.maximumViewers = maximumViewers
        self.quality = quality
    }

    var counters: Counters { state.withLock { $0.counters } }

    /// The newest frame, if one came in the last half second, else the next one (nil after 2 s).
    func currentFrame() async -> ByteBuffer? {
        if let fresh = state.withLock({ $0.latestTime.timeIntervalSinceNow > -0.5 ? $0.latest : nil }) { return fresh }
        guard let frames = subscribe() else { return nil }
        return await withTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask {
                for await frame in frames where self.state.withLock({ $0.latestTime.timeIntervalSinceNow > -0.5 }) {
                    return frame
                }
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

    /// A viewer's frames, or nil when as many viewers as allowed are watching.
    func subscribe() -> AsyncStream<ByteBuffer>? {
        let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        let admitted = state.withLock { state -> Bool in
            guard !state.closed, state.viewers.count < maximumViewers else { return false }
            state.viewers[id] = continuation
            state.counters.viewers = state.viewers.count
            if let latest = state.latest { continuation.yield(latest) }
            return true
        }
        guard admitted else { return nil }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in
                state.viewers[id] = nil
                state.counters.viewers = state.viewers.count
            }
        }
        return stream
    }

    /// Feeds viewers from `frames` until it ends.
    func run(_ frames: AsyncStream<PreviewFrame>) async {
        for await frame in frames {
            guard state.withLock({ !$0.viewers.isEmpty }) else { continue }
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
            let viewers = state.withLock { state -> [AsyncStream<ByteBuffer>.Continuation] in
                state.latest = jpeg
                state.latestTime = Date()
                if frame.isJPEG { state.counters.passedThrough += 1 } else { state.counters.encoded += 1 }
                return Array(state.viewers.values)
            }
            for viewer in viewers { viewer.yield(jpeg) }
        }
    }

    /// Ends every viewer's stream and admits no more (the server is shutting down).
    func finish() {
        let viewers = state.withLock { state in
            state.closed = true
            return Array(state.viewers.values)
        }
        for viewer in viewers { viewer.finish() }
    }

    /// One part of a multipart/x-mixed-replace stream: its head, the shared JPEG
    /// itself (never copied per viewer), and the line end.
    static func part(_ jpeg: ByteBuffer, boundary: String) -> [ByteBuffer] {
        let head = "--\(boundary)\r\nContent-Type: image/jpeg\r\nContent-Length: \(jpeg.readableBytes)\r\n\r\n"
        return [ByteBuffer(string: head), jpeg, ByteBuffer(string: "\r\n")]
    }
}
