import Foundation
import MatteboxCore
import MatteboxPipeline
import MatteboxPluginHost

/// What a batch worker process needs to set itself up; the first line the
/// parent sends it. The worker validates the pipeline itself and loads the
/// plugins, so nothing but this text crosses the process boundary.
package struct WorkerSetup: Codable, Sendable {
    package var pipeline: PipelineSource
    package var options: BatchOptions
    /// The parent's plugin registry, so workers do not scan again (nil: discover).
    package var plugins: [PluginScanResult]?

    package init(pipeline: PipelineSource, options: BatchOptions, plugins: [PluginScanResult]? = nil) {
        self.pipeline = pipeline
        self.options = options
        self.plugins = plugins
    }

    /// What the worker runs: the parent's plugins (or those this executable sees), the pipeline
    /// validated against them, and a processor writing as the options say.
    func makeProcessor() throws -> BatchProcessor {
        let registry = plugins.map(PluginRegistry.init(scans:)) ?? PluginRegistry.discoverForThisExecutable()
        let validated = try pipeline.validate(registry: registry, providedRoles: options.providedRoles)
        return BatchProcessor(runner: try PipelineRunner(pipeline: validated, registry: registry), options: options)
    }
}

/// One photo for a worker: every later line the parent sends.
package struct WorkerJob: Codable, Sendable {
    package var input: String
    package var stem: String
    /// The photo's sidecars, by role (paths).
    package var sidecars: [String: String] = [:]
    /// The movie beside it with its name (a path), perhaps its Live Photo movie.
    package var movie: String?
}

/// A worker's answer line: first `ready` or `setupError`, then one `outcome` per job.
package struct WorkerReply: Codable, Sendable {
    package var ready: Bool?
    package var setupError: String?
    package var outcome: PhotoOutcome?

    package init(ready: Bool? = nil, setupError: String? = nil, outcome: PhotoOutcome? = nil) {
        self.ready = ready
        self.setupError = setupError
        self.outcome = outcome
    }
}
