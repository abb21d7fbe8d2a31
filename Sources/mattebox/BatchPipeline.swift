import Foundation
import MatteboxPipeline
import MatteboxPluginHost

/// The pipeline `mattebox process` runs, read and validated the same way in
/// the parent (to fail early and fingerprint it) and in every worker.
enum BatchPipeline {
    static let defaultText = """
        # Built-in default: turn photos upright.
        stages:
          - plugin: org.mattebox.orientation
        """
    static let defaultPath = "(default pipeline)"

    static func validate(text: String, path: String, options: BatchOptions, registry: PluginRegistry) throws
        -> ValidatedPipeline
    {
        try PipelineValidator.validate(
            PipelineFile.parse(text, path: path), registry: registry, providedRoles: Set(options.auxiliaryInputs.keys))
    }
}
