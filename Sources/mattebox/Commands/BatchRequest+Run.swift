import ArgumentParser
import Foundation
import MatteboxBatch
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxVision
import MatteboxPluginHost
import MatteboxRuntime

/// How a batch runs, for `process` and `render` alike: plan (inputs, pipeline,
/// output folder, manifest), preflight, run on workers, report.
extension BatchRequest {
    func run() throws {
        guard output == "-" || photos.contains("-") else { return try runBatch() }
        guard photos.count == 1 else { throw ValidationError("- reads one photo: give it alone, not with other photos") }
        guard !(output == "-" && (json || auxPng || report != nil)) else {
            throw ValidationError("-o - writes the photo itself to standard output; --json, --aux-png and --report need a folder")
        }
        let folder = try StandardStreams.temporaryFolder()
        defer { StandardStreams.cleanUp(folder) }
        var command = self
        let spooled = try StandardStreams.input(photos[0]) { folder }.path
        command.photos = [spooled]
        if output == "-" { command.output = folder.appendingPathComponent("out").path }
        try command.runBatch(linesTo: output == "-" ? .standardError : .standardOutput, spooledInput: photos[0] == "-" ? spooled : nil)
        if output == "-" {
            let outputs = try FileManager.default.contentsOfDirectory(atPath: command.output).filter { !$0.hasPrefix(".") }
            guard outputs.count == 1 else { throw MatteboxError("expected one output for standard output, found \(outputs.count)") }
            try StandardStreams.copyToStandardOutput(URL(fileURLWithPath: command.output).appendingPathComponent(outputs[0]))
        }
    }

    /// Where per-photo lines and the summary go: standard error when the photo itself goes to standard output.
    enum Lines { case standardOutput, standardError }

    /// What a batch will do, settled before any photo runs: the inputs (this shard's), the
    /// options, the validated pipeline and its fingerprint, the manifest and what `--resume` skips.
    private struct BatchPlan {
        var all: [BatchInput]
        var inputs: [BatchInput]
        var options: BatchOptions
        var shard: BatchShard?
        var registry: PluginRegistry
        var source: PipelineSource
        var fingerprint: String
        var manifest: ResumeManifest
        var queue: [BatchInput]
        var skipped: [String: PhotoOutcome]
        var workers: Int
    }

    /// `spooledInput`: the temporary file standard input was spooled into, shown as "standard input".
    private func runBatch(linesTo lines: Lines = .standardOutput, spooledInput: String? = nil) throws {
        @Sendable func shown(_ outcome: PhotoOutcome) -> PhotoOutcome {
            guard let spooledInput else { return outcome }
            var outcome = outcome
            outcome.input = outcome.input == spooledInput ? "standard input" : outcome.input
            outcome.error = outcome.error?.replacingOccurrences(of: spooledInput, with: "standard input")
            return outcome
        }
        var plan = try planBatch()
        if dryRun {
            let dry = DryRun(inputs: plan.inputs, queue: plan.queue, skipped: plan.skipped, options: plan.options, manifest: plan.manifest)
            try dry.print(json: json)
            if dry.refused { throw ExitCode(1) }
            return
        }
        // The checks a dry run makes, before any work: a photo refused here is not processed.
        let preflighted = plan.queue.compactMap { input in
            BatchPreflight.outcome(of: input, BatchPreflight.check(input, options: plan.options, manifest: plan.manifest))
        }
        for outcome in preflighted where !json && (!quiet || outcome.status == .failed) {
            BatchRequest.printLine(shown(outcome), timings: timings, to: lines)
        }
        let early = Set(preflighted.map(\.input))
        plan.queue.removeAll { early.contains($0.url.path) }
        let pressure = BatchPressure(jobs: plan.workers)
        let clock = ContinuousClock.now
        let (run, inference) = try runScheduler(plan, pressure: pressure) { outcome in
            BatchRequest.printLine(shown(outcome), timings: timings, to: lines)
        }
        defer { inference?.stop() }
        let byPath = Dictionary((preflighted + run.outcomes).map { ($0.input, $0) }, uniquingKeysWith: { first, _ in first })
        let outcomes = plan.inputs.compactMap { plan.skipped[$0.stem] ?? byPath[$0.url.path] }.map(shown)
        var summary = BatchReport(
            mattebox: MatteboxVersion.current, pipeline: plan.source.path, pipelineSHA256: plan.fingerprint, jobs: plan.workers,
            peakConcurrency: run.peakConcurrency, highestPressure: pressure.highest.description,
            shard: plan.shard?.description, wallSeconds: clock.secondsSince, total: outcomes.count,
            succeeded: outcomes.filter { $0.status == .ok }.count, failed: outcomes.filter { $0.status == .failed }.count,
            skipped: outcomes.filter { $0.status == .skipped }.count,
            photos: outcomes)
        if let report {
            if let inference {
                summary.inferenceStarts = inference.starts
                do {
                    summary.inferenceNetworks = try InferenceService.networkCount(socketPath: inference.socketPath)
                } catch {
                    Log.emit(.warning, "\(error)")
                }
            }
            try AtomicFile.write(try JSONOutput.encode(summary), to: URL(fileURLWithPath: report))
        }
        if json {
            try JSONOutput.print(summary)
        } else if !quiet {
            Self.emit(Self.summaryLine(summary, plan: plan), to: lines)
        }
        if summary.failed > 0 { throw ExitCode(1) }
    }

    /// Checks the options, finds the inputs (this shard's), validates the pipeline for them,
    /// prepares the output folder and reads its manifest.
    private func planBatch() throws -> BatchPlan {
        var options = try batchOptions()
        guard jobs.map({ $0 >= 1 }) ?? true else { throw ValidationError("--jobs must be at least 1") }
        guard timeout > 0 else { throw ValidationError("--timeout must be more than 0 seconds") }
        let selectedShard = try shard.map { text in
            guard let parsed = BatchShard(text) else {
                throw ValidationError("--shard takes K/N with 0 <= K < N (e.g. 0/4), not \(text)")
            }
            return parsed
        }
        // Every shard's manifest, read once: an earlier run's outputs in a folder walked for inputs (a run
        // beside the originals) are not inputs, and --resume and the output checks read it below.
        let manifest = ResumeManifest(outputDirectory: options.outputDirectory, shard: selectedShard?.position)
        var all = BatchInputs.collect(
            photos, outputDirectory: options.outputDirectory, sidecars: options.sidecars, earlierOutput: manifest.lists)
        if let suffix { for index in all.indices { all[index].stem += suffix } }
        guard !all.isEmpty else { throw MatteboxError("no photos found in \(photos.joined(separator: ", "))") }
        if !options.auxiliaryInputs.isEmpty, all.count > 1 {
            throw ValidationError("--aux attaches images to one photo; give exactly one photo with it")
        }
        let inputs = selectedShard.map { shard in all.filter(shard.includes) } ?? all
        options.shard = selectedShard
        options.safety = OutputSafety(
            existingFiles: replaceOtherFiles ? .replaceAny : overwrite ? .overwrite : noClobber ? .skip : .refuse,
            inputs: Set(all.compactMap { FileIdentity($0.url) }))
        try BatchInputs.refuseOutputsOverInputs(inputs, options: options)

        let registry = PluginRegistry.discoverForThisExecutable()
        var source: PipelineSource
        switch pipeline {
        case .named(let name): source = try PipelineSource.load(name, registry: registry)
        case .built(let built): source = built
        }
        source.settings += try settings.map(ParameterSetting.init(parsing:))
        options.sidecarRoles = Set(inputs.flatMap(\.sidecars.keys))
        let validated = try source.validate(registry: registry, providedRoles: options.providedRoles)
        try validated.checkOutputFormat(options.format)
        try OutputFolder.prepare(options.outputDirectory, create: !dryRun)
        let fingerprint = try PipelineFingerprint.sha256(of: validated, options: options)
        let (queue, skipped) = resume ? manifest.partition(inputs, pipelineSHA256: fingerprint) : (inputs, [:])

        let workers = jobs ?? ProcessInfo.processInfo.activeProcessorCount
        options.encodeAhead = !noEncodeAhead && min(workers, queue.count) < ProcessInfo.processInfo.activeProcessorCount
        Log.emit(.info, "\(source.path): \(validated.stages.map(\.plugin.id).joined(separator: " → ")); "
            + "\(queue.count) of \(inputs.count) photos to do with \(workers) worker(s) into \(options.outputDirectory.path)")
        for scan in registry.scans where scan.status != .ok {
            Log.emit(.debug, "plugin file \(scan.path) not used: \(scan.reason ?? scan.status.rawValue)")
        }
        return BatchPlan(
            all: all, inputs: inputs, options: options, shard: selectedShard, registry: registry, source: source, fingerprint: fingerprint,
            manifest: manifest, queue: queue, skipped: skipped, workers: workers)
    }

    /// Runs the queue on worker processes (with one inference process when there are several),
    /// recording each outcome in the manifest and the progress as it comes; `printLine` gets
    /// the lines to show (-q: a failed photo's only). The caller stops the inference process.
    private func runScheduler(
        _ plan: BatchPlan, pressure: BatchPressure, printLine: @escaping @Sendable (PhotoOutcome) -> Void
    ) throws -> (BatchRun, InferenceHost?) {
        var scheduler = BatchScheduler(
            workerCommand: [HostExecutable.path, "worker"],
            setup: WorkerSetup(pipeline: plan.source, options: plan.options, plugins: plan.registry.scans),
            jobs: plan.workers, photoTimeout: timeout)
        if !ignorePressure { scheduler.concurrencyLimit = pressure.concurrency }
        // Several workers share one inference process, so each network is held once.
        let inference = min(plan.workers, plan.queue.count) > 1 ? try InferenceHost(command: [HostExecutable.path, "inference-server"]) : nil
        if let inference {
            do { try inference.start() } catch {
                inference.stop()
                throw error
            }
            scheduler.environment = inference.environment
        }
        let progress = BatchProgress(total: plan.queue.count, skipped: plan.skipped.count, jsonLines: jsonProgress)
        let quiet = quiet, json = self.json, manifest = plan.manifest, queue = plan.queue, fingerprint = plan.fingerprint
        let run: BatchRun
        do {
            run = try scheduler.run(queue) { index, outcome in
                manifest.record(outcome, stem: queue[index].stem, pipelineSHA256: fingerprint)
                progress.update(outcome) {
                    if !json, !quiet || outcome.status == .failed { printLine(outcome) }
                }
            }
        } catch {
            inference?.stop()
            throw error
        }
        progress.finish()
        return (run, inference)
    }

    /// "12 succeeded, 1 failed, 3 already done … in 4.2 s with 2 workers".
    private static func summaryLine(_ summary: BatchReport, plan: BatchPlan) -> String {
        var line = "\(summary.succeeded) succeeded, \(summary.failed) failed"
        if !plan.skipped.isEmpty { line += ", \(plan.skipped.count) already done" }
        let kept = summary.skipped - plan.skipped.count
        if kept > 0 { line += ", \(kept) skipped (output exists)" }
        let noted = summary.photos.filter { !$0.notes.isEmpty }.count
        if noted > 0 { line += ", \(noted) with notes (above)" }
        if let shard = plan.shard { line += " (shard \(shard) of \(plan.all.count) photos)" }
        return line + String(format: " in %.1f s with %d worker%@", summary.wallSeconds, plan.workers, plan.workers == 1 ? "" : "s")
    }

    private func batchOptions() throws -> BatchOptions {
        var options = BatchOptions(outputDirectory: URL(fileURLWithPath: output).standardizedFileURL)
        let outputFormat = try format.map { name in
            guard let parsed = OutputFormat(rawValue: name) else {
                throw ValidationError("--format must be \(ImageContainers.writableNames), not \(name)")
            }
            return parsed
        }
        guard quality.map({ (1...100).contains($0) }) ?? true else { throw ValidationError("--quality must be 1...100") }
        options.format = outputFormat
        options.quality = quality
        options.reencode = reencode
        options.dynamicDepth = dynamicDepth
        options.writeAuxiliaryPNGs = auxPng
        options.sidecars = !noSidecars
        if let cameraPosition {
            guard let position = CameraPosition(rawValue: cameraPosition) else {
                throw ValidationError("--camera-position must be front, back or external")
            }
            options.cameraPosition = position
        }
        for item in auxiliary {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, ImageRole(parts[0]).isValidName, parts[0] != "primary" else {
                let roles = ImageRole.wellKnown.filter { $0 != .primary }.map(\.rawValue)
                let typed = parts.first ?? item
                throw ValidationError(
                    "--aux takes ROLE=FILE with a role such as depth or portraitMatte, not \(item)\(Suggestion.clause(for: typed, among: roles))")
            }
            options.auxiliaryInputs[ImageRole(parts[0])] = URL(fileURLWithPath: parts[1]).standardizedFileURL
        }
        return options
    }

    private static func printLine(_ outcome: PhotoOutcome, timings: Bool, to lines: Lines) {
        func print(_ text: String) { emit(text, to: lines) }
        if let output = outcome.output {
            print("\(outcome.input) -> \(output)")
            for extra in outcome.auxiliaryOutputs { print("      + \(extra)") }
            for line in NoteLines.render(outcome.notes) { print("      \(line)") }
        } else {
            print("FAILED \(outcome.error ?? outcome.input)")
        }
        guard timings else { return }
        func peak(_ mebibytes: Double?) -> String { mebibytes.map { String(format: "  peak %6.0f MiB", $0) } ?? "" }
        print(String(format: "      decode %8.1f ms", outcome.decodeSeconds * 1000) + peak(outcome.decodePeakMiB))
        for stage in outcome.stages {
            print(String(format: "      %@ %8.1f ms  %@", stage.plugin.padding(toLength: 28, withPad: " ", startingAt: 0),
                         stage.seconds * 1000, stage.status.rawValue) + peak(stage.peakMiB))
        }
        if outcome.status == .ok {
            print(String(format: "      encode %8.1f ms", outcome.encodeSeconds * 1000) + peak(outcome.encodePeakMiB))
        }
    }
    private static func emit(_ text: String, to lines: Lines) {
        switch lines {
        case .standardOutput: Swift.print(text)
        case .standardError: FileHandle.standardError.write(Data((text + "\n").utf8))
        }
    }
}
