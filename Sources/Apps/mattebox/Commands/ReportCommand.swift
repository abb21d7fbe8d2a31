import ArgumentParser
import Foundation
import MatteboxBatch
import MatteboxPipeline

/// `mattebox report merge`: one account of a batch run as shards (a Slurm
/// array, a Kubernetes Indexed Job) from the report each shard wrote.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report", abstract: "Work with batch reports (mattebox process --report).", subcommands: [Merge.self])

    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge the reports of a sharded run into one summary.",
            discussion: """
                Each shard of `mattebox process --shard K/N --report FILE` writes its own report; \
                this reads them all and says how many photos the archive has, how many are done \
                (now or by an earlier run, with --resume), which failed and why, and which shards \
                have not reported. Exit status 1 when a photo failed or a shard is missing.

                  mattebox report merge /scratch/out/reports/*.json
                """)

        @OptionGroup var verbosity: Verbosity
        @Flag(help: "Print the merged summary as JSON.") var json = false
        @Argument(help: "The shards' report files.") var reports: [String]

        func validate() throws {
            guard !reports.isEmpty else { throw ValidationError("name the shards' report files (e.g. out/reports/*.json)") }
        }

        func run() throws {
            let merged = try BatchReportMerge.merge(reports.map { URL(fileURLWithPath: $0) })
            if json {
                try JSONOutput.print(merged)
            } else {
                let shards = merged.shards.isEmpty ? "" : " from shards \(merged.shards.joined(separator: ", "))"
                print("\(merged.reports.count) report\(merged.reports.count == 1 ? "" : "s")\(shards): \(merged.total) photos")
                print("  \(merged.succeeded) succeeded, \(merged.skipped) done by an earlier run, \(merged.failed) failed")
                for failure in merged.failures {
                    let reason = failure.error ?? "no reason given"
                    print("  failed: " + (reason.hasPrefix(failure.input) ? reason : "\(failure.input): \(reason)"))
                }
                for problem in merged.problems { print("  problem: \(problem)") }
            }
            if merged.failed > 0 || !merged.missingShards.isEmpty { throw ExitCode(1) }
        }
    }
}
