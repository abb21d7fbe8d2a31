import Foundation
import MatteboxPipeline
import MatteboxPressure
import MatteboxRuntime
import Synchronization

/// Lowers a batch's concurrency under thermal pressure (the one policy the
/// capture session follows too: thermal signals set the level, CPU stall time
/// is only reported). One warning line when throttling starts and one when it
/// ends; the steps in between at info level. Remembers the highest level seen
/// for the report.
package final class BatchPressure: Sendable {
    private let monitor: PressureMonitor
    private let jobs: Int
    private let seen = Mutex<(allowed: Int, highest: PressureLevel)>((0, .nominal))

    package init(jobs: Int) {
        monitor = PressureMonitor()
        self.jobs = jobs
        seen.withLock { $0.allowed = jobs }
    }

    package var highest: PressureLevel { seen.withLock { $0.highest } }

    @Sendable package func concurrency() -> Int {
        let level = monitor.current().level
        let allowed = level.batchConcurrency(jobs: jobs)
        let previous = seen.withLock { seen in
            defer { seen = (allowed, max(seen.highest, level)) }
            return seen.allowed
        }
        guard previous != allowed else { return allowed }
        let what = allowed == 0 ? "batch paused until it drops" : "\(allowed) of \(jobs) photos at once"
        if previous == jobs {
            Log.emit(.warning, "system pressure \(level): throttling starts, \(what)")
        } else if allowed == jobs {
            Log.emit(.warning, "system pressure \(level): throttling ends, \(jobs) photos at once again")
        } else {
            Log.emit(.info, "system pressure \(level): \(what)")
        }
        return allowed
    }
}
