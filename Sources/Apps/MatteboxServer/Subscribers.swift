import Foundation
import Synchronization

/// A capped set of open streams that each get what is sent, the fan-out under
/// the live preview and the event stream: each subscriber's buffer keeps only
/// the newest `keepingNewest` elements, so a slow one loses old elements rather
/// than growing; past `limit` subscribers, or once finished, no one is admitted.
final class Subscribers<Element: Sendable>: Sendable {
    private struct State {
        var streams: [UUID: AsyncStream<Element>.Continuation] = [:]
        var closed = false
    }

    private let state = Mutex(State())
    let limit: Int
    private let keepingNewest: Int

    init(limit: Int, keepingNewest: Int) {
        self.limit = limit
        self.keepingNewest = keepingNewest
    }

    var count: Int { state.withLock { $0.streams.count } }

    /// A new stream, starting with `first` when given; nil when full or finished.
    func subscribe(first: Element? = nil) -> AsyncStream<Element>? {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(keepingNewest))
        let id = UUID()
        let admitted = state.withLock { state -> Bool in
            guard !state.closed, state.streams.count < limit else { return false }
            state.streams[id] = continuation
            return true
        }
        guard admitted else { return nil }
        if let first { continuation.yield(first) }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.streams.removeValue(forKey: id) } }
        return stream
    }

    func send(_ element: Element) {
        for stream in state.withLock({ Array($0.streams.values) }) { stream.yield(element) }
    }

    /// Ends every stream and admits no more (the server is shutting down).
    func finish() {
        let streams = state.withLock { state in
            state.closed = true
            return Array(state.streams.values)
        }
        for stream in streams { stream.finish() }
    }
}
