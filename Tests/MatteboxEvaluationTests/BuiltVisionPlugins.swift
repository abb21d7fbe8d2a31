import Foundation
import MatteboxCore
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxTestSupport

/// The real built plugins, found by the real scanner, and the evaluation data when ../shared is beside the clone.
enum BuiltVisionPlugins {
    static let registry = PluginRegistry.discover(
        searchPath: PluginSearchPath(directories: [TestEnvironment.binDirectory.path]),
        scanner: .using(executable: TestEnvironment.mattebox))

    static func runner(_ yaml: String, roles: Set<ImageRole> = []) throws -> PipelineRunner {
        let file = try PipelineFile.parse(yaml, path: "test.yaml")
        return try PipelineRunner(
            pipeline: try PipelineValidator.validate(file, registry: registry, providedRoles: roles), registry: registry)
    }

    static var eval: URL? { TestEnvironment.shared?.appendingPathComponent("eval") }
    static let noEval = "../shared/eval is not beside this clone; quality tests skipped"

    static let chessboards = URL(fileURLWithPath: "/usr/share/doc/opencv-doc/examples/data")
    static var hasChessboards: Bool {
        FileManager.default.fileExists(atPath: chessboards.appendingPathComponent("left01.jpg").path)
    }
}
