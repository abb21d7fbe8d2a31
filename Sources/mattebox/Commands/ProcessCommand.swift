import ArgumentParser
import Foundation
import MatteboxBatch
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxVision
import MatteboxPluginHost
import MatteboxRuntime

/// `mattebox process`: runs a pipeline file over photos and folders of photos
/// and writes the results, in parallel worker processes, resumably.
struct ProcessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "process",
        abstract: "Run a pipeline over photos (JPEG, PNG, TIFF, WebP, HEIC) and write the results.",
        discussion: """
            Folders are walked recursively and their tree is mirrored under the output folder. Each \
            photo succeeds or fails on its own; the exit status is 1 when any photo failed. Plugins \
            run in worker processes (-j of them), so a plugin that crashes or hangs fails only its \
            photo. Originals are never modified; outputs are written atomically and recorded in \
            OUT/.mattebox-manifest*.jsonl, which --resume reads to skip photos already done with the \
            same content and pipeline. --shard K/N (K from 0) processes a stable 1/N of the photos, \
            so N machines can split one archive. Without --pipeline, photos are turned upright from \
            their EXIF orientation.
            """)

    @OptionGroup var verbosity: Verbosity
    @Argument(help: "Photos, or folders to walk for photos; - reads one photo from standard input.", completion: .file())
    var photos: [String]
    @Option(name: .shortAndLong, help: "Folder to write results to (created if missing); - writes the one photo to standard output.")
    var output: String
    @Option(
        name: .customLong("set"),
        help: ArgumentHelp(
            "Set a stage's parameter: STAGE.KEY=VALUE, repeatable (e.g. --set portrait-matte.effort=quality).",
            discussion: "STAGE is a plugin id or its last part; the value is checked like one in the file.",
            valueName: "stage.key=value"))
    var settings: [String] = []
    @Option(
        help: ArgumentHelp(
            "Pipeline file (YAML), a named pipeline (e.g. portrait-mattes; `mattebox pipeline list` lists them), or stages joined by ! (e.g. \"orientation ! portrait-matte effort=quality ! heif\").",
            discussion: "In a pipeline written inline, each stage is a plugin id or its last part, then KEY=VALUE parameters; ? before a stage makes it optional."),
        completion: Completions.pipelines)
    var pipeline: String?
    @Option(help: "Output format: \(ImageContainers.writableNames), any case or alias (jpg, heif); default: \(PhotoWriter.defaultFormatRule). A pipeline's HEIF stage writes heic.", completion: Completions.formats)
    var format: String?
    @Option(help: "JPEG or HEIF quality, 1-100 (default: 92 for JPEG, 75 for HEIF), for the images that are encoded.") var quality: Int?
    @Flag(help: "Encode every image again. By default a HEIF output copies the images a HEIF input holds whose pixels no stage changed (the primary, its thumbnail, depth, mattes, gain map) byte for byte: no generation loss, and only new images cost encoding time.")
    var reencode = false
    @Option(help: ArgumentHelp(
        "How a JPEG output holds depth: keep (the input's own layout, an iPhone's MPF images or Lens Blur's GDepth, where the photo and its depth did not change; else Dynamic Depth 1.0) or dynamic-depth (always Dynamic Depth 1.0, which Android and Google Photos read).",
        valueName: "keep|dynamic-depth"))
    var jpegDepth: JPEGDepthLayout = .keep

    /// `--jpeg-depth`: the layout a JPEG output's depth is written in.
    enum JPEGDepthLayout: String, ExpressibleByArgument, CaseIterable {
        case keep
        case dynamicDepth = "dynamic-depth"
    }
    @Option(help: "Camera position for mirroring policies: front, back, external (default: from EXIF).")
    var cameraPosition: String?
    @Option(name: .customLong("aux"), help: "Attach an auxiliary image to the photo: ROLE=FILE (e.g. depth=d.png).")
    var auxiliary: [String] = []
    @Flag(help: "Also write each auxiliary image as <name>.<role>.png (float depth as 16-bit millimetres, other float images as 16-bit; the scale is in the PNG's tEXt mattebox:<role>-scale).") var auxPng = false
    @Option(
        name: .shortAndLong, parsing: .unconditional,
        help: "Photos processed at once, each in its own worker (default: the number of cores).")
    var jobs: Int?
    @Flag(help: "Encode the primary only once every stage has run. By default, with fewer photos at once than cores, it is encoded while the matte stages run: faster, but a photo's encode and mattes are then in memory together.")
    var noEncodeAhead = false
    @Flag(help: "Skip photos whose outputs are complete for the same input content and pipeline.") var resume = false
    @Option(help: "Process only shard K of N (K = 0..N-1), chosen by a stable hash of each photo's path.")
    var shard: String?
    @Option(help: "Write a JSON report (per-photo status, error, outputs, stage timings) to this file.")
    var report: String?
    @Option(help: "Seconds one photo may take before its worker is killed and the photo fails.")
    var timeout: Double = 600
    @Flag(help: "Do not attach NAME.<role>.png|pfm|tif files beside NAME.jpg as its auxiliary images; process them as photos.")
    var noSidecars = false
    @Option(parsing: .unconditional, help: "Add this to every output's name (photo.jpg -> photo-edited.jpg with --suffix -edited), e.g. to write beside the originals.")
    var suffix: String?
    @Flag(help: "Replace earlier outputs in the output folder, also those changed since Mattebox wrote them (by default a file changed since is yours and is kept). Files Mattebox did not write are still kept.")
    var overwrite = false
    @Flag(help: "Replace any existing file an output is named as, also files Mattebox did not write (another photo with the output's name); never an input.")
    var replaceOtherFiles = false
    @Flag(name: [.customShort("n"), .customLong("no-clobber")], help: "Skip photos whose output file already exists.")
    var noClobber = false
    @Flag(help: "Print per-stage timings and peak memory for every photo.") var timings = false
    @Flag(help: "Print the JSON report on standard output instead of text.") var json = false
    @Flag(help: "Report progress as JSON lines on standard error (one per finished photo) instead of a bar.")
    var jsonProgress = false
    @Flag(help: "List what would happen to each photo (process, skip as already done, refuse and why) and stop.")
    var dryRun = false
    @Flag(help: "Run at full speed whatever the thermal state (by default a batch runs fewer photos at once when hot).")
    var ignorePressure = false

    func validate() throws {
        if let suffix {
            guard !suffix.isEmpty, !suffix.contains("/"), !suffix.hasPrefix("."), suffix.allSatisfy({ !$0.isNewline }) else {
                throw ValidationError("--suffix takes text for the end of a file name (no /, not starting with a dot), not \(suffix)")
            }
        }
        guard !((overwrite || replaceOtherFiles) && noClobber) else {
            throw ValidationError("choose one of --overwrite (or --replace-other-files) and --no-clobber")
        }
    }

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
        for outcome in preflighted where !json && (!verbosity.quiet || outcome.status == .failed) {
            ProcessCommand.printLine(shown(outcome), timings: timings, to: lines)
        }
        let early = Set(preflighted.map(\.input))
        plan.queue.removeAll { early.contains($0.url.path) }
        let pressure = BatchPressure(jobs: plan.workers)
        let clock = ContinuousClock.now
        let (run, inference) = try runScheduler(plan, pressure: pressure) { outcome in
            ProcessCommand.printLine(shown(outcome), timings: timings, to: lines)
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
        } else if !verbosity.quiet {
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
        var source = try PipelineSource.load(pipeline, registry: registry)
        source.settings = try settings.map(ParameterSetting.init(parsing:))
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
        let quiet = verbosity.quiet, json = self.json, manifest = plan.manifest, queue = plan.queue, fingerprint = plan.fingerprint
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
        options.dynamicDepth = jpegDepth == .dynamicDepth
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
