import Foundation

/// What `--report` and `--json` write: the run and every photo's outcome.
public struct BatchReport: Encodable, Sendable {
    public var mattebox: String
    public var pipeline: String
    public var pipelineSHA256: String
    public var jobs: Int
    /// The most photos in progress at once; below `jobs` when thermal pressure throttled the batch.
    public var peakConcurrency: Int
    public var highestPressure: String
    public var shard: String?
    public var wallSeconds: Double
    public var total: Int
    public var succeeded: Int
    public var failed: Int
    public var skipped: Int
    public var photos: [PhotoOutcome]
    /// With several workers: how many networks the batch's one inference
    /// process held at the end, and how many times it was started (nil with one worker).
    public var inferenceNetworks: Int?
    public var inferenceStarts: Int?

    public init(
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
