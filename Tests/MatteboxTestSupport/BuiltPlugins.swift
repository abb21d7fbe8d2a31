import Foundation
import MatteboxCore
import MatteboxPipeline
import MatteboxPluginHost

/// The real built plugins, found by the real scanner, and pipelines over them.
package enum BuiltPlugins {
    package static let registry = PluginRegistry.discover(
        searchPath: PluginSearchPath(directories: [TestEnvironment.binDirectory.path]),
        scanner: .using(executable: TestEnvironment.mattebox))

    package static func runner(_ yaml: String, roles: Set<ImageRole> = []) throws -> PipelineRunner {
        let file = try PipelineFile.parse(yaml, path: "test.yaml")
        return try PipelineRunner(
            pipeline: try PipelineValidator.validate(file, registry: registry, providedRoles: roles), registry: registry)
    }
}
