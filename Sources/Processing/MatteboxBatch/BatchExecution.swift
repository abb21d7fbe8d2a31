import Foundation
import MatteboxRuntime
import MatteboxVision

/// A planned batch run through to its report: the photos a preflight refuses, the worker processes
/// (and the one inference process they share when several run at once), each outcome recorded in
/// the manifest as it comes, and the report of the whole run. Why it exists: running a batch is the
/// batch's business, the same for `process`, `render` and any later front end; what a front end
/// shows while it runs (lines, a progress bar, JSON) is its own, through the closures it passes.
package struct BatchExecution {
    package private(set) var plan: BatchPlan
    /// Seconds one photo may take before its worker is killed and the photo fails.
    package var photoTimeout: Double = 600
    /// Fewer photos at once when the machine is hot (`--ignore-pressure` turns it off).
    package var followsPressure = true
    /// The report says how many networks the inference process held (asking loads the vision library).
    package var countsInferenceNetworks = false
    private var preflighted: [PhotoOutcome] = []
    private let pressure: BatchPressure
    private let clock = ContinuousClock.now

    package init(plan: BatchPlan) {
        self.plan = plan
        pressure = BatchPressure(jobs: plan.workers)
    }

    /// The checks a dry run makes, before any work: the photos refused here leave the queue.
    /// Returns their outcomes (a front end shows them before the rest).
    package mutating func preflight() -> [PhotoOutcome] {
        let (plan, options, manifest) = (plan, plan.options, plan.manifest)
        preflighted = plan.queue.compactMap { input in
            BatchPreflight.outcome(of: input, BatchPreflight.check(input, options: options, manifest: manifest))
        }
        let refused = Set(preflighted.map(\.input))
        self.plan.queue.removeAll { refused.contains($0.url.path) }
        return preflighted
    }

    /// Runs the queue on worker processes. `started` gets the inference process (nil when one
    /// worker runs) before the first photo, so a front end can stop it if the user interrupts;
    /// `finished` gets each photo's outcome as it comes, after the manifest has recorded it.
    package func run(
        started: (InferenceHost?) -> Void = { _ in }, finished: @escaping @Sendable (PhotoOutcome) -> Void
    ) throws -> BatchReport {
        var scheduler = BatchScheduler(
            workerCommand: [HostExecutable.path, "worker"],
            setup: WorkerSetup(pipeline: plan.source, options: plan.options, plugins: plan.registry.scans),
            jobs: plan.workers, photoTimeout: photoTimeout)
        if followsPressure { scheduler.concurrencyLimit = pressure.concurrency }
        // Several workers share one inference process, so each network is held once.
        let inference = min(plan.workers, plan.queue.count) > 1 ? try InferenceHost(command: [HostExecutable.path, "inference-server"]) : nil
        defer { inference?.stop() }
        if let inference {
            try inference.start()
            scheduler.environment = inference.environment
        }
        if let budget = plan.memoryBudget, min(plan.workers, plan.queue.count) > 1 {
            scheduler.memory = (budget.forWorkers(sharedInference: inference != nil), BatchMemoryBudget.workerCost(of:))
        }
        started(inference)
        let (manifest, queue, fingerprint) = (plan.manifest, plan.queue, plan.fingerprint)
        let run = try scheduler.run(queue) { index, outcome in
            manifest.record(outcome, stem: queue[index].stem, pipelineSHA256: fingerprint)
            finished(outcome)
        }
        return report(run, inference: inference)
    }

    /// The report of the run: every photo of the plan in its order (done before, refused, run).
    private func report(_ run: BatchRun, inference: InferenceHost?) -> BatchReport {
        let byPath = Dictionary((preflighted + run.outcomes).map { ($0.input, $0) }, uniquingKeysWith: { first, _ in first })
        let outcomes = plan.inputs.compactMap { plan.skipped[$0.stem] ?? byPath[$0.url.path] }
        var report = BatchReport(
            mattebox: MatteboxVersion.current, pipeline: plan.source.path, pipelineSHA256: plan.fingerprint, jobs: plan.workers,
            peakConcurrency: run.peakConcurrency, highestPressure: pressure.highest.description,
            shard: plan.shard?.description, wallSeconds: clock.secondsSince, total: outcomes.count,
            succeeded: outcomes.filter { $0.status == .ok }.count, failed: outcomes.filter { $0.status == .failed }.count,
            skipped: outcomes.filter { $0.status == .skipped }.count,
            photos: outcomes)
        report.memoryBudgetMiB = plan.memoryBudget.map { $0.bytes >> 20 }
        if let inference, countsInferenceNetworks {
            report.inferenceStarts = inference.starts
            do {
                report.inferenceNetworks = try InferenceService.networkCount(socketPath: inference.socketPath)
            } catch {
                Log.emit(.warning, "\(error)")
            }
        }
        return report
    }
}
