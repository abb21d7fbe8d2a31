import Foundation
import MatteboxCore
import MatteboxPluginHost
import MatteboxRuntime

/// A pipeline as a command names it: the text of a pipeline file, or the
/// built-in default, with the path messages name. It crosses process
/// boundaries as text (a batch worker gets it in its setup) and is validated
/// the same way wherever it is run.
public struct PipelineSource: Sendable, Codable, Equatable {
    public var text: String
    public var path: String

    public init(text: String, path: String) {
        self.text = text
        self.path = path
    }

    /// The default when no pipeline is given: turn photos upright.
    public static let upright = PipelineSource(
        text: """
            # Built-in default: turn photos upright.
            stages:
              - plugin: org.mattebox.orientation
            """,
        path: "(default pipeline)")

    /// The pipeline file at `path`, a named pipeline (`portrait-mattes`: a
    /// file `pipelines/NAME.yaml` in the data folders), or the default when
    /// there is neither.
    public static func load(_ path: String?) throws -> PipelineSource {
        guard let path else { return .upright }
        if !FileManager.default.fileExists(atPath: path), !path.contains("/"), !path.hasSuffix(".yaml"), !path.hasSuffix(".yml") {
            let named = Self.named
            guard let url = named[path] else {
                throw MatteboxError(
                    "no pipeline file or named pipeline `\(path)`\(Suggestion.clause(for: path, among: named.keys.sorted()))",
                    hint: "named pipelines: \(named.keys.sorted().joined(separator: ", "))")
            }
            return PipelineSource(text: try PipelineFile.load(url.path).contents, path: url.path)
        }
        return PipelineSource(text: try PipelineFile.load(path).contents, path: path)
    }

    /// The named pipelines the data folders hold, by name.
    public static var named: [String: URL] { DataFolders.named(in: "pipelines", extensions: ["yaml", "yml"]) }

    /// Parses and validates against `registry`; `providedRoles` are the images
    /// the input brings besides the primary (attached with `--aux`).
    public func validate(registry: PluginRegistry, providedRoles: Set<ImageRole> = []) throws -> ValidatedPipeline {
        try PipelineValidator.validate(PipelineFile.parse(text, path: path), registry: registry, providedRoles: providedRoles)
    }
}
