import Foundation
import MatteboxCapture
import MatteboxCore
import Synchronization

/// Lowers a batch's concurrency under thermal and CPU pressure (the monitor
/// the capture session uses), and says so on standard error when the level
/// changes; remembers the highest level seen for the report.
final class BatchPressure: Sendable {
    private let monitor: PressureMonitor
    private let jobs: Int
    private let seen = Mutex<(last: PressureLevel, highest: PressureLevel)>((.nominal, .nominal))

    init(monitor: PressureMonitor, jobs: Int) {
        self.monitor = monitor
        self.jobs = jobs
    }

    var highest: PressureLevel { seen.withLock { $0.highest } }

    @Sendable func concurrency() -> Int {
        let level = monitor.current().level
        let changed = seen.withLock { seen in
            defer { seen = (level, max(seen.highest, level)) }
            return seen.last != level
        }
        let allowed = level.batchConcurrency(jobs: jobs)
        if changed {
            Log.emit(
                .warning,
                allowed == 0
                    ? "system pressure \(level): batch paused until it drops"
                    : "system pressure \(level): \(allowed) of \(jobs) photos at once")
        }
        return allowed
    }
}
