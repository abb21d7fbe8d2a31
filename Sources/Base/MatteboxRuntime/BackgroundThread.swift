import Foundation

/// One thread for work that can wait while something else must not: it runs
/// its jobs in order at a lower CPU priority, so on a machine with few cores a
/// capture's processing gives way to the next shutter press (its frame, its
/// proxy) and to the preview, and takes the rest. Threads it starts (OpenCV's
/// and x265's pools) inherit the priority. The thread ends with its owner.
package final class BackgroundThread: Sendable {
    /// How far the thread steps back.
    package enum Priority: Sendable {
        /// A higher nice value (1...19): a smaller share of the CPU while others want it.
        case nice(Int32)
        /// Linux's SCHED_IDLE: the CPU only when nothing else wants it.
        case idle
    }

    private final class Jobs: @unchecked Sendable {
        let condition = NSCondition()
        var pending: [@Sendable () -> Void] = []
        var stopped = false
    }

    private let jobs = Jobs()

    package init(name: String, priority: Priority) {
        let jobs = self.jobs
        let thread = Thread {
            // Stepping back needs no privilege (only stepping forward does); on Linux, who 0 is this thread.
            switch priority {
            case .nice(let nice): _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
            case .idle:
                var parameters = sched_param(sched_priority: 0)
                let schedIdle: Int32 = 5  // SCHED_IDLE, which Glibc's module leaves out (it needs _GNU_SOURCE)
                if sched_setscheduler(0, schedIdle, &parameters) != 0 {
                    _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
                }
            }
            while true {
                jobs.condition.lock()
                while jobs.pending.isEmpty, !jobs.stopped { jobs.condition.wait() }
                if jobs.pending.isEmpty {
                    jobs.condition.unlock()
                    return
                }
                let job = jobs.pending.removeFirst()
                jobs.condition.unlock()
                job()
            }
        }
        thread.name = name
        thread.start()
    }

    deinit {
        jobs.condition.lock()
        jobs.stopped = true
        jobs.condition.signal()
        jobs.condition.unlock()
    }

    /// Runs `work` on the thread, after the jobs before it.
    package func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            jobs.condition.lock()
            jobs.pending.append { continuation.resume(with: Result { try work() }) }
            jobs.condition.signal()
            jobs.condition.unlock()
        }
    }
}
