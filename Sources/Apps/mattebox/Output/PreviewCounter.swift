import Synchronization

/// Counts live-view frames to report the rate a UI would have seen.
final class PreviewCounter: Sendable {
    private let stamps = Mutex<[UInt64]>([])

    func add(_ timestamp: UInt64) { stamps.withLock { $0.append(timestamp) } }

    var framesPerSecond: Double {
        stamps.withLock { stamps in
            guard stamps.count > 1, let first = stamps.first, let last = stamps.last, last > first else { return 0 }
            return Double(stamps.count - 1) / (Double(last - first) / 1e9)
        }
    }
}
