import Foundation
import Synchronization
import MatteboxCore

/// A frame for a live view, as the camera sent it (MJPEG bytes pass on to a
/// browser without decoding, as ustreamer does), with the decoder that turns it
/// into RGB for viewers that need pixels.
package struct PreviewFrame: Sendable {
    package var frame: CapturedFrame
    package var decoder: any FrameDecoder

    package var sequence: UInt32 { frame.sequence }
    package var timestamp: UInt64 { frame.timestamp }
    /// Whether the bytes are already a JPEG (MJPEG cameras).
    package var isJPEG: Bool { frame.format.fourcc.kind == .jpeg }

    package func rgbImage() throws -> PixelImage { try decoder.rgbImage(of: frame) }
}

/// The live-view subscribers of a session; each gets the newest frame and
/// skips frames it was too slow for.
final class PreviewFanout: Sendable {
    private let continuations = Mutex<[UUID: AsyncStream<PreviewFrame>.Continuation]>([:])

    var hasSubscribers: Bool { continuations.withLock { !$0.isEmpty } }

    func subscribe() -> AsyncStream<PreviewFrame> {
        let (stream, continuation) = AsyncStream.makeStream(of: PreviewFrame.self, bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        continuations.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in _ = self?.continuations.withLock { $0.removeValue(forKey: id) } }
        return stream
    }

    func send(_ frame: PreviewFrame) {
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.yield(frame) }
    }

    func finishAll() {
        for continuation in continuations.withLock({ Array($0.values) }) { continuation.finish() }
    }
}
