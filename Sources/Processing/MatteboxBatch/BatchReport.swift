import Foundation
import MatteboxPipeline

/// What `--report` and `--json` write: the run and every photo's outcome.
package struct BatchReport: Encodable, Sendable {
    package var mattebox: String
    package var pipeline: String
    package var pipelineSHA256: String
    package var jobs: Int
    /// The most photos in progress at once; below `jobs` when thermal pressure throttled the batch.
    package var peakConcurrency: Int
    package var highestPressure: String
    package var shard: String?
    package var wallSeconds: Double
    package var total: Int
    package var succeeded: Int
    package var failed: Int
    package var skipped: Int
    package var photos: [PhotoOutcome]
    /// With several workers: how many networks the batch's one inference
    /// process held at the end, and how many times it was started (nil with one worker).
    package var inferenceNetworks: Int?
    package var inferenceStarts: Int?
    /// The memory budget photos were admitted by, in MiB (nil: none), and whether it held a photo back.
    package var memoryBudgetMiB: Int?

    package init(
        mattebox: String, pipeline: String, pipelineSHA256: String, jobs: Int, peakConcurrency: Int,
        highestPressure: String, shard: String?, wallSeconds: Double, total: Int, succeeded: Int, failed: Int,
        skipped: Int, photos: [PhotoOutcome]
    ) {
        self.mattebox = mattebox
        self.pipeline = pipeline
        self.pipelineSHA256 = pipelineSHA256
        self.jobs = jobs
        self.peakConcurrency = peakConcurrency
        self.highestPressure = highestPressure
        self.shard = shard
        self.wallSeconds = wallSeconds
        self.total = total
        self.succeeded = succeeded
        self.failed = failed
        self.skipped = skipped
        self.photos = photos
    }
}
