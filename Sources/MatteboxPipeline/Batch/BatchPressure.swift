import Foundation
import MatteboxCore
import MatteboxPressure
import MatteboxRuntime
import Synchronization

/// Lowers a batch's concurrency under thermal pressure (the monitor the
/// capture session uses, without CPU stall time, which a busy batch causes
/// itself), and says so on standard error when that changes how many photos
/// run at once; remembers the highest level seen for the report.
public final class BatchPressure: Sendable {
    private let monitor: PressureMonitor
    private let jobs: Int
    private let seen = Mutex<(allowed: Int, highest: PressureLevel)>((0, .nominal))

    public init(jobs: Int) {
        var sources = SystemPressureSources.fromEnvironment
        sources.includesCPUPressure = false
        monitor = PressureMonitor(sources: sources)
        self.jobs = jobs
        seen.withLock { $0.allowed = jobs }
    }

    public var highest: PressureLevel { seen.withLock { $0.highest } }

    @Sendable public func concurrency() -> Int {
        let level = monitor.current().level
        let allowed = level.batchConcurrency(jobs: jobs)
        let changed = seen.withLock { seen in
            defer { seen = (allowed, max(seen.highest, level)) }
            return seen.allowed != allowed
        }
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
