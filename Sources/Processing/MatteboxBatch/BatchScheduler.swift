import Foundation
import MatteboxCore
import MatteboxPipeline
import MatteboxRuntime

/// The worker could not set up the pipeline (a plugin failed to load or
/// create): no photo can succeed, so the batch stops.
package struct WorkerSetupError: Error, CustomStringConvertible, Sendable {
    package var description: String
}

/// Runs a batch's photos on a pool of worker processes, `jobs` at a time.
/// Each worker keeps its plugin instances for many photos; a worker that
/// crashes or passes the per-photo time limit is killed, its photo fails with
/// the signal or the timeout, its half-written files are removed, and a new
/// worker takes the next photo.
package struct BatchScheduler: Sendable {
    /// The command that starts a worker (`mattebox worker`).
    package var workerCommand: [String]
    package var setup: WorkerSetup
    package var jobs: Int
    /// Seconds one photo may take before its worker is killed.
    package var photoTimeout: Double
    /// Seconds a worker may take to load the plugins.
    package var setupTimeout: Double = 300
    /// Consulted before each photo starts: fewer workers take photos while it
    /// is below `jobs` (thermal pressure); 0 pauses the batch until it rises.
    package var concurrencyLimit: @Sendable () -> Int = { Int.max }
    /// Added to each worker's environment (the inference process's socket).
    package var environment: [String: String] = [:]
    /// Admission by memory: the bytes the workers may hold at once and each photo's estimate; a
    /// photo waits while those in flight and it would pass it (one photo always runs).
    package var memory: (bytesForWorkers: Int, cost: @Sendable (BatchInput) -> Int)?

    /// glibc gives each thread that allocates its own arena, up to 8 per
    /// core, and keeps what was freed in each: x265's and OpenCV's thread
    /// pools then leave a worker holding tens of MiB more after every photo.
    /// Two arenas (unless the user set MALLOC_ARENA_MAX) cost no measurable
    /// time here and lower the -j 2 tree's peak by about 50 MiB (bench-mattes.md).
    static var allocatorEnvironment: [String: String] {
        ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil ? ["MALLOC_ARENA_MAX": "2"] : [:]
    }

    package init(workerCommand: [String], setup: WorkerSetup, jobs: Int, photoTimeout: Double) {
        self.workerCommand = workerCommand
        self.setup = setup
        self.jobs = max(1, jobs)
        self.photoTimeout = photoTimeout
    }

    /// Runs every input; `completed` is called once per photo, one call at a
    /// time, in the order photos finish. Returns outcomes in input order.
    package func run(_ inputs: [BatchInput], completed: @escaping @Sendable (Int, PhotoOutcome) -> Void) throws
        -> BatchRun
    {
        let state = SchedulerState(count: inputs.count)
        if let memory {
            state.admission = (memory.bytesForWorkers, { memory.cost(inputs[$0]) })
        }
        let setupLine = try JSONEncoder().encode(setup)
        let group = DispatchGroup()
        for slot in 0..<min(jobs, max(inputs.count, 1)) {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                self.work(slot: slot, inputs: inputs, setupLine: setupLine, state: state, completed: completed)
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        group.wait()
        if let fatal = state.fatal { throw fatal }
        return BatchRun(outcomes: state.outcomes.map { $0! }, peakConcurrency: state.peakActive)
    }

    private func work(
        slot: Int, inputs: [BatchInput], setupLine: Data, state: SchedulerState,
        completed: @Sendable (Int, PhotoOutcome) -> Void
    ) {
        var worker: LineChannelProcess?
        defer { worker?.close() }
        while let index = state.next(slot: slot, limit: { min(jobs, concurrencyLimit()) }) {
            let input = inputs[index]
            do {
                if worker == nil { worker = try startWorker(setupLine) }
            } catch {
                state.stop(error)
                return
            }
            let outcome = run(input, on: worker!)
            if case .failed = outcome.status, outcome.workerFailure != nil {
                worker = nil
            }
            state.finish(index, outcome, completed: completed)
        }
    }

    private func startWorker(_ setupLine: Data) throws -> LineChannelProcess {
        do {
            let settings = Self.allocatorEnvironment.merging(["MATTEBOX_LOG": Log.currentThreshold.name]) { _, ours in ours }
            let worker = try LineChannelProcess(arguments: workerCommand, environment: environment.merging(settings) { _, ours in ours })
            try worker.send(setupLine)
            let reply = try JSONDecoder().decode(WorkerReply.self, from: worker.receiveLine(timeout: setupTimeout))
            if let message = reply.setupError {
                worker.close()
                throw WorkerSetupError(description: message)
            }
            return worker
        } catch let failure as LineChannelProcess.Failure {
            throw WorkerSetupError(description: "the batch worker did not start: \(failure)")
        }
    }

    private func run(_ input: BatchInput, on worker: LineChannelProcess) -> PhotoOutcome {
        do {
            let job = WorkerJob(
                input: input.url.path, stem: input.stem,
                sidecars: Dictionary(uniqueKeysWithValues: input.sidecars.map { ($0.key.rawValue, $0.value.path) }),
                movie: input.movie?.path)
            try worker.send(try JSONEncoder().encode(job))
            let line = try worker.receiveLine(timeout: photoTimeout)
            if let outcome = try JSONDecoder().decode(WorkerReply.self, from: line).outcome { return outcome }
            return failed(input, "the worker answered without an outcome", worker: worker)
        } catch let failure as LineChannelProcess.Failure {
            var outcome = failed(input, "\(failure) while processing this photo", worker: worker)
            if case .signalled(let signal) = failure { outcome.workerSignal = signal }
            if case .timedOut = failure { outcome.timedOut = true }
            return outcome
        } catch {
            return failed(input, "unreadable answer from the worker: \(error)", worker: worker)
        }
    }

    /// A photo lost with its worker: the worker is gone (or is killed here)
    /// and whatever it was writing for this photo is removed.
    private func failed(_ input: BatchInput, _ reason: String, worker: LineChannelProcess) -> PhotoOutcome {
        worker.kill()
        AtomicFile.removeUnfinished(
            startingWith: setup.options.outputDirectory.appendingPathComponent(input.stem), writer: worker.pid)
        var outcome = PhotoOutcome(input: input.url.path, status: .failed)
        outcome.error = "\(input.url.path): \(reason)"
        outcome.workerFailure = reason
        return outcome
    }
}

/// What a scheduler run did: outcomes in input order, and the most photos
/// that were in progress at once (lower than `jobs` under thermal pressure).
package struct BatchRun: Sendable {
    package var outcomes: [PhotoOutcome]
    package var peakConcurrency: Int
}

/// The shared queue position, results and stop flag of one scheduler run.
// Unchecked: guarded by an NSCondition, which slots wait on (Mutex cannot wait).
private final class SchedulerState: @unchecked Sendable {
    private let lock = NSCondition()
    private var nextIndex = 0
    private var active = 0
    /// The bytes workers may hold and each photo's estimate, by index (set before the run).
    var admission: (bytes: Int, cost: (Int) -> Int)?
    private var costs: [Int: Int] = [:]
    private var committed = 0
    private var heldBackByMemory = false
    private(set) var peakActive = 0
    private(set) var outcomes: [PhotoOutcome?]
    private(set) var fatal: Error?

    init(count: Int) { outcomes = Array(repeating: nil, count: count) }

    /// The next photo for `slot`, waiting while `limit()` workers are already
    /// busy; nil when none is left or the batch stopped.
    func next(slot: Int, limit: () -> Int) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        while fatal == nil, nextIndex < outcomes.count, active >= limit() || !fitsInMemory(nextIndex) {
            _ = lock.wait(until: Date().addingTimeInterval(1))
        }
        guard fatal == nil, nextIndex < outcomes.count else { return nil }
        defer { nextIndex += 1 }
        committed += cost(nextIndex)
        active += 1
        peakActive = max(peakActive, active)
        return nextIndex
    }

    func finish(_ index: Int, _ outcome: PhotoOutcome, completed: (Int, PhotoOutcome) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        outcomes[index] = outcome
        committed -= cost(index)
        active -= 1
        completed(index, outcome)
        lock.broadcast()
    }

    /// A photo's estimated bytes (0 without a budget), read once.
    private func cost(_ index: Int) -> Int {
        guard let admission else { return 0 }
        if let known = costs[index] { return known }
        let value = admission.cost(index)
        costs[index] = value
        return value
    }

    /// Whether photo `index` may start beside those in flight; says so once when it may not.
    private func fitsInMemory(_ index: Int) -> Bool {
        guard let admission, active > 0, committed + cost(index) > admission.bytes else { return true }
        if !heldBackByMemory {
            heldBackByMemory = true
            Log.emit(.warning, "memory budget: \(active) photo(s) in flight hold about \(BatchMemoryBudget.describe(committed)) of the "
                + "\(BatchMemoryBudget.describe(admission.bytes)) the workers may use, so the next waits (about "
                + "\(BatchMemoryBudget.describe(cost(index)))); --memory-budget sets the budget")
        }
        return false
    }

    func stop(_ error: Error) {
        lock.lock()
        defer { lock.unlock() }
        if fatal == nil { fatal = error }
        active -= 1
        lock.broadcast()
    }
}
