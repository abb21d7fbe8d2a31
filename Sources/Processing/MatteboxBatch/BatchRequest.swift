import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxRuntime

/// One batch of photos to run through a pipeline and write, as plain values:
/// what `process` parses from its options and `render` builds from its own
/// (with the pipeline as a value, not a file), so both take one path from a
/// run to written files.
package struct BatchRequest: Sendable {
    /// The pipeline: as `--pipeline` names it (a file, a named or an inline
    /// pipeline; nil: upright only), or built by a command.
    package enum Pipeline: Sendable {
        case named(String?)
        case built(PipelineSource)
    }

    package var photos: [String]
    package var output: String
    package var pipeline: Pipeline
    package var settings: [String] = []
    package var format: String?
    package var quality: Int?
    package var reencode = false
    /// `--hdr`: keep (the default) or drop.
    package var hdr: String?
    package var dynamicDepth = false
    package var cameraPosition: String?
    package var auxiliary: [String] = []
    package var auxPng = false
    package var jobs: Int?
    /// `--memory-budget`: a size ("1.5G") or "none"; nil: four fifths of what the machine has available.
    package var memoryBudget: String?
    package var noEncodeAhead = false
    package var resume = false
    package var shard: String?
    package var report: String?
    package var timeout: Double = 600
    package var noSidecars = false
    package var suffix: String?
    package var overwrite = false
    package var replaceOtherFiles = false
    package var noClobber = false
    package var timings = false
    package var json = false
    package var jsonProgress = false
    package var dryRun = false
    package var ignorePressure = false
    package var quiet = false
    /// The plugins the command already found; nil: `plan()` discovers them.
    package var registry: PluginRegistry?

    package init(photos: [String], output: String, pipeline: Pipeline) {
        self.photos = photos
        self.output = output
        self.pipeline = pipeline
    }
}

extension BatchRequest {
    /// The checks on options alone, before anything is read (a mistake is a command-line one: exit 64).
    package func validate() throws {
        if let suffix {
            guard !suffix.isEmpty, !suffix.contains("/"), !suffix.hasPrefix("."), suffix.allSatisfy({ !$0.isNewline }) else {
                throw mistake("--suffix takes text for the end of a file name (no /, not starting with a dot), not \(suffix)")
            }
        }
        guard !((overwrite || replaceOtherFiles) && noClobber) else {
            throw mistake("choose one of --overwrite (or --replace-other-files) and --no-clobber")
        }
    }

    /// Checks the options, finds the inputs (this shard's), validates the pipeline for them,
    /// prepares the output folder and reads its manifest.
    package func plan() throws -> BatchPlan {
        var options = try batchOptions()
        guard jobs.map({ $0 >= 1 }) ?? true else { throw mistake("--jobs must be at least 1") }
        guard timeout > 0 else { throw mistake("--timeout must be more than 0 seconds") }
        // Given: the user's (nil for "none"); not given: the machine's.
        let budget = try memoryBudget.map { try BatchMemoryBudget.parse($0) } ?? BatchMemoryBudget.machineDefault()
        let selectedShard = try shard.map { text in
            guard let parsed = BatchShard(text) else {
                throw mistake("--shard takes K/N with 0 <= K < N (e.g. 0/4), not \(text)")
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
            throw mistake("--aux attaches images to one photo; give exactly one photo with it")
        }
        let inputs = selectedShard.map { shard in all.filter(shard.includes) } ?? all
        options.shard = selectedShard
        options.safety = OutputSafety(
            existingFiles: replaceOtherFiles ? .replaceAny : overwrite ? .overwrite : noClobber ? .skip : .refuse,
            inputs: Set(all.compactMap { FileIdentity($0.url) }))
        try BatchInputs.refuseOutputsOverInputs(inputs, options: options)

        let registry = self.registry ?? PluginRegistry.discoverForThisExecutable()
        var source: PipelineSource
        switch pipeline {
        case .named(let name): source = try PipelineSource.load(name, registry: registry)
        case .built(let built): source = built
        }
        source.settings += try settings.map(ParameterSetting.init(parsing:))
        options.sidecarRoles = Set(inputs.flatMap(\.sidecars.keys))
        let validated = try source.validate(registry: registry, providedRoles: options.providedRoles)
        try validated.checkOutputFormat(options.format, auxiliaryBeside: auxPng)
        try OutputFolder.prepare(options.outputDirectory, create: !dryRun)
        let fingerprint = try PipelineFingerprint.sha256(of: validated, options: options)
        let (queue, skipped) = resume ? manifest.partition(inputs, pipelineSHA256: fingerprint) : (inputs, [:])

        let workers = budget.map { $0.workers(for: queue, asked: jobs ?? ProcessInfo.processInfo.activeProcessorCount) }
            ?? jobs ?? ProcessInfo.processInfo.activeProcessorCount
        options.encodeAhead = !noEncodeAhead && min(workers, queue.count) < ProcessInfo.processInfo.activeProcessorCount
        Log.emit(.info, "\(source.path): \(validated.stages.map(\.plugin.id).joined(separator: " → ")); "
            + "\(queue.count) of \(inputs.count) photos to do with \(workers) worker(s) into \(options.outputDirectory.path)")
        for scan in registry.scans where scan.status != .ok {
            Log.emit(.debug, "plugin file \(scan.path) not used: \(scan.reason ?? scan.status.rawValue)")
        }
        return BatchPlan(
            all: all, inputs: inputs, options: options, shard: selectedShard, registry: registry, source: source, fingerprint: fingerprint,
            manifest: manifest, queue: queue, skipped: skipped, workers: workers, memoryBudget: budget)
    }

    package func batchOptions() throws -> BatchOptions {
        var options = BatchOptions(outputDirectory: URL(fileURLWithPath: output).standardizedFileURL)
        let outputFormat = try format.map { name in
            guard let parsed = OutputFormat(rawValue: name) else {
                throw mistake("--format must be \(ImageContainers.writableNames), not \(name)")
            }
            return parsed
        }
        guard quality.map({ (1...100).contains($0) }) ?? true else { throw mistake("--quality must be 1...100") }
        options.format = outputFormat
        options.quality = quality
        options.reencode = reencode
        switch hdr ?? "keep" {
        case "keep": options.dropHDR = false
        case "drop": options.dropHDR = true
        case let other: throw mistake("--hdr must be keep or drop, not \(other)")
        }
        options.dynamicDepth = dynamicDepth
        options.writeAuxiliaryPNGs = auxPng
        options.sidecars = !noSidecars
        if let cameraPosition {
            guard let position = CameraPosition(rawValue: cameraPosition) else {
                throw mistake("--camera-position must be front, back or external")
            }
            options.cameraPosition = position
        }
        for item in auxiliary {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, ImageRole(parts[0]).isValidName, parts[0] != "primary" else {
                let roles = ImageRole.wellKnown.filter { $0 != .primary }.map(\.rawValue)
                let typed = parts.first ?? item
                throw mistake(
                    "--aux takes ROLE=FILE with a role such as depth or portraitMatte, not \(item)\(Suggestion.clause(for: typed, among: roles))")
            }
            options.auxiliaryInputs[ImageRole(parts[0])] = URL(fileURLWithPath: parts[1]).standardizedFileURL
        }
        return options
    }
}

/// What a batch will do, settled before any photo runs: the inputs (this shard's), the
/// options, the validated pipeline and its fingerprint, the manifest and what `--resume` skips.
package struct BatchPlan {
    package var all: [BatchInput]
    package var inputs: [BatchInput]
    package var options: BatchOptions
    package var shard: BatchShard?
    package var registry: PluginRegistry
    package var source: PipelineSource
    package var fingerprint: String
    package var manifest: ResumeManifest
    package var queue: [BatchInput]
    package var skipped: [String: PhotoOutcome]
    package var workers: Int
    /// What the photos in flight may hold at once (nil: no budget, `--memory-budget none`).
    package var memoryBudget: BatchMemoryBudget?
}

/// A mistake in the request's options: the command line's (exit 64).
private func mistake(_ message: String) -> MatteboxError {
    MatteboxError(message, commandLineMistake: true)
}
