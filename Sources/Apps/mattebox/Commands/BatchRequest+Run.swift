import ArgumentParser
import Foundation
import MatteboxBatch
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxVision
import MatteboxPluginHost
import MatteboxRuntime

/// How a batch shows itself on the command line, for `process` and `render` alike: MatteboxBatch
/// plans and runs it (`BatchRequest.plan`, `BatchExecution`); here are standard input and output,
/// the dry run's listing, a line per photo, the progress bar, Ctrl-C, the report file and the exit status.
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

    /// `spooledInput`: the temporary file standard input was spooled into, shown as "standard input".
    private func runBatch(linesTo lines: Lines = .standardOutput, spooledInput: String? = nil) throws {
        @Sendable func shown(_ outcome: PhotoOutcome) -> PhotoOutcome {
            guard let spooledInput else { return outcome }
            var outcome = outcome
            outcome.input = outcome.input == spooledInput ? "standard input" : outcome.input
            outcome.error = outcome.error?.replacingOccurrences(of: spooledInput, with: "standard input")
            return outcome
        }
        let plan = try asCommandLineMistake { try self.plan() }
        if dryRun {
            let dry = DryRun(inputs: plan.inputs, queue: plan.queue, skipped: plan.skipped, options: plan.options, manifest: plan.manifest)
            try dry.print(json: json)
            if dry.refused { throw ExitCode(1) }
            return
        }
        var execution = BatchExecution(plan: plan)
        execution.photoTimeout = timeout
        execution.followsPressure = !ignorePressure
        execution.countsInferenceNetworks = report != nil
        for outcome in execution.preflight() where !json && (!quiet || outcome.status == .failed) {
            BatchRequest.printLine(shown(outcome), timings: timings, to: lines)
        }
        let progress = BatchProgress(total: execution.plan.queue.count, skipped: plan.skipped.count, jsonLines: jsonProgress)
        let (quiet, json, timings) = (quiet, json, timings)
        var interruption: BatchInterruption?
        defer { interruption?.end() }
        var summary = try execution.run(
            started: { inference in
                interruption = BatchInterruption(
                    output: output == "-" ? "standard output" : output, summary: { progress.summary() }, cleanUp: { inference?.stop() })
            },
            finished: { outcome in
                progress.update(outcome) {
                    if !json, !quiet || outcome.status == .failed { BatchRequest.printLine(shown(outcome), timings: timings, to: lines) }
                }
            })
        progress.finish()
        summary.photos = summary.photos.map(shown)
        if let report {
            try AtomicFile.write(try JSONOutput.encode(summary), to: URL(fileURLWithPath: report))
        }
        if json {
            try JSONOutput.print(summary)
        } else if !quiet {
            Self.emit(Self.summaryLine(summary, plan: plan), to: lines)
        }
        if summary.failed > 0 { throw ExitCode(1) }
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

/// The plan's and the options' command-line mistakes as ArgumentParser's, so they show the usage and exit 64.
func asCommandLineMistake<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as MatteboxError where error.isCommandLineMistake && error.hint == nil {
        throw ValidationError(error.message)
    }
}
