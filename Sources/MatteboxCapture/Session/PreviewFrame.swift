import Foundation
import MatteboxCore

/// A frame for a live view: RGB pixels, with the sequence and time it was taken.
public struct PreviewFrame: Sendable {
    public var image: PixelImage
    public var sequence: UInt32
    public var timestamp: UInt64
}

/// The live-view subscribers of a session; each gets the newest frame and
/// skips frames it was too slow for.
final class PreviewFanout: @unchecked Sendable {
    private var continuations: [UUID: AsyncStream<PreviewFrame>.Continuation] = [:]
    private let lock = NSLock()

    var hasSubscribers: Bool { lock.withLock { !continuations.isEmpty } }

    func subscribe() -> AsyncStream<PreviewFrame> {
        let (stream, continuation) = AsyncStream.makeStream(of: PreviewFrame.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        lock.withLock { continuations[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.lock.withLock { self?.continuations[id] = nil } }
        return stream
    }

    func send(_ frame: PreviewFrame) {
        for continuation in lock.withLock({ Array(continuations.values) }) { continuation.yield(frame) }
    }

    func finishAll() {
        for continuation in lock.withLock({ Array(continuations.values) }) { continuation.finish() }
    }
}
