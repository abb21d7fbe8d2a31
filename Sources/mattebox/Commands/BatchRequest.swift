import ArgumentParser
import Foundation
import MatteboxPipeline

/// One batch of photos to run through a pipeline and write, as plain values:
/// what `process` parses from its options and `render` builds from its own
/// (with the pipeline as a value, not a file), so both take one path from a
/// run to written files.
struct BatchRequest {
    /// The pipeline: as `--pipeline` names it (a file, a named or an inline
    /// pipeline; nil: upright only), or built by a command.
    enum Pipeline {
        case named(String?)
        case built(PipelineSource)
    }

    var photos: [String]
    var output: String
    var pipeline: Pipeline
    var settings: [String] = []
    var format: String?
    var quality: Int?
    var reencode = false
    var dynamicDepth = false
    var cameraPosition: String?
    var auxiliary: [String] = []
    var auxPng = false
    var jobs: Int?
    var noEncodeAhead = false
    var resume = false
    var shard: String?
    var report: String?
    var timeout: Double = 600
    var noSidecars = false
    var suffix: String?
    var overwrite = false
    var replaceOtherFiles = false
    var noClobber = false
    var timings = false
    var json = false
    var jsonProgress = false
    var dryRun = false
    var ignorePressure = false
    var quiet = false

    init(photos: [String], output: String, pipeline: Pipeline) {
        self.photos = photos
        self.output = output
        self.pipeline = pipeline
    }

    /// The checks on options alone, before anything is read (a mistake is a command-line one: exit 64).
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
}
