import Foundation
import MatteboxPipeline
import MatteboxRuntime

/// The reports of a batch split into shards (`--shard K/N --report FILE`, one
/// per Slurm task or Kubernetes pod) merged into one account of the archive:
/// how many photos, how many done (now or by an earlier run), which failed and
/// why, and which shards have not reported. Why it exists: after a cluster run
/// nobody should have to add up N JSON files by hand to learn whether the
/// archive is complete.
package struct BatchReportMerge: Encodable, Sendable {
    /// One photo as the latest report naming it gives it.
    package struct Photo: Codable, Sendable, Equatable {
        package var input: String
        package var status: PhotoOutcome.Status
        package var output: String?
        package var error: String?
        /// The report it comes from.
        package var report: String
    }

    package var reports: [String]
    /// `K/N` of each shard that reported, in order; empty when the reports are not sharded.
    package var shards: [String]
    /// Shards of `shardCount` with no report (`K/N`).
    package var missingShards: [String]
    package var pipelineSHA256: [String]
    package var total: Int
    package var succeeded: Int
    /// Complete already (by an earlier run of the shard, or an output that existed).
    package var skipped: Int
    package var failed: Int
    package var failures: [Photo]
    /// Inputs that more than one report lists (shards that overlap: different N, or a photo moved).
    package var listedTwice: [String]

    /// Reads and merges `files`; a file that is not a Mattebox batch report is an error naming it.
    package static func merge(_ files: [URL]) throws -> BatchReportMerge {
        var photos: [String: Photo] = [:]
        var listedTwice: [String] = []
        var shards: [BatchShard] = []
        var fingerprints: [String] = []
        for file in files {
            let report: ShardReport
            do {
                report = try JSONDecoder().decode(ShardReport.self, from: try Data(contentsOf: file))
            } catch let error as DecodingError {
                throw MatteboxError("\(file.path) is not a Mattebox batch report (mattebox process --report): \(error.shortDescription)")
            } catch {
                throw MatteboxError("cannot read \(file.path): \(SystemError.describe(error))")
            }
            if let text = report.shard {
                guard let shard = BatchShard(text) else { throw MatteboxError("\(file.path): shard \(text) is not K/N") }
                if shards.contains(shard) { throw MatteboxError("\(file.path): a second report for shard \(shard)") }
                shards.append(shard)
            }
            if !fingerprints.contains(report.pipelineSHA256) { fingerprints.append(report.pipelineSHA256) }
            for outcome in report.photos {
                if photos[outcome.input] != nil { listedTwice.append(outcome.input) }
                photos[outcome.input] = Photo(
                    input: outcome.input, status: outcome.status, output: outcome.output, error: outcome.error, report: file.path)
            }
        }
        let counts = Set(shards.map(\.count))
        let missing: [String] =
            counts.count == 1
            ? (0..<counts.first!).filter { index in !shards.contains { $0.index == index } }.map { "\($0)/\(counts.first!)" } : []
        let all = photos.values.sorted { $0.input < $1.input }
        return BatchReportMerge(
            reports: files.map(\.path), shards: shards.sorted { $0.index < $1.index }.map(\.description), missingShards: missing,
            pipelineSHA256: fingerprints, total: all.count, succeeded: all.filter { $0.status == .ok }.count,
            skipped: all.filter { $0.status == .skipped }.count, failed: all.filter { $0.status == .failed }.count,
            failures: all.filter { $0.status == .failed }, listedTwice: listedTwice.sorted())
    }

    /// Problems that make the merged account incomplete or mixed, in words.
    package var problems: [String] {
        var problems: [String] = []
        if !missingShards.isEmpty { problems.append("no report from shard \(missingShards.joined(separator: ", "))") }
        if Set(shards.map { $0.split(separator: "/").last ?? "" }).count > 1 {
            problems.append("the reports come from different shard counts: \(shards.joined(separator: ", "))")
        }
        if pipelineSHA256.count > 1 { problems.append("the reports come from \(pipelineSHA256.count) different pipelines") }
        if !listedTwice.isEmpty { problems.append("\(listedTwice.count) photo(s) listed by more than one report") }
        return problems
    }

    /// What a report file holds that the merge needs.
    private struct ShardReport: Decodable {
        var pipelineSHA256: String
        var shard: String?
        var photos: [Outcome]

        struct Outcome: Decodable {
            var input: String
            var status: PhotoOutcome.Status
            var output: String?
            var error: String?
        }
    }
}

extension DecodingError {
    /// The key path and reason, without Swift's debug dump.
    var shortDescription: String {
        switch self {
        case .keyNotFound(let key, let context): return "no \((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default: return "\(self)"
        }
    }
}
