import Foundation
import MatteboxCore

/// What a batch worker process needs to set itself up; the first line the
/// parent sends it. The worker validates the pipeline itself and loads the
/// plugins, so nothing but this text crosses the process boundary.
public struct WorkerSetup: Codable, Sendable {
    public var pipelineText: String
    public var pipelinePath: String
    public var options: BatchOptions

    public init(pipelineText: String, pipelinePath: String, options: BatchOptions) {
        self.pipelineText = pipelineText
        self.pipelinePath = pipelinePath
        self.options = options
    }
}

/// One photo for a worker: every later line the parent sends.
public struct WorkerJob: Codable, Sendable {
    public var input: String
    public var stem: String
}

/// A worker's answer line: first `ready` or `setupError`, then one `outcome` per job.
public struct WorkerReply: Codable, Sendable {
    public var ready: Bool?
    public var setupError: String?
    public var outcome: PhotoOutcome?

    public init(ready: Bool? = nil, setupError: String? = nil, outcome: PhotoOutcome? = nil) {
        self.ready = ready
        self.setupError = setupError
        self.outcome = outcome
    }
}
