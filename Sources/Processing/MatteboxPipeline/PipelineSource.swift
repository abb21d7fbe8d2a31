import Foundation
import MatteboxCore
import MatteboxPluginHost
import MatteboxRuntime

/// A pipeline as a command names it: the text of a pipeline file, or the
/// built-in default, with the path messages name. It crosses process
/// boundaries as text (a batch worker gets it in its setup) and is validated
/// the same way wherever it is run.
package struct PipelineSource: Sendable, Codable, Equatable {
    package var text: String
    package var path: String
    /// Parameters set on the command line (`--set`), applied over the file's.
    package var settings: [ParameterSetting] = []

    package init(text: String, path: String, settings: [ParameterSetting] = []) {
        self.text = text
        self.path = path
        self.settings = settings
    }

    /// The default when no pipeline is given: turn photos upright.
    package static let upright = PipelineSource(
        text: """
            # Built-in default: turn photos upright.
            stages:
              - plugin: org.mattebox.orientation
            """,
        path: "(default pipeline)")

    /// The pipeline file at `path`, a named pipeline (`portrait-mattes`: a
    /// file `pipelines/NAME.yaml` in the data folders), an inline pipeline
    /// (`orientation ! portrait-matte effort=quality`, `InlinePipeline`; with
    /// `registry`, one stage alone too: `invert`, `my-grain gain=0.5`), or the
    /// default when there is none.
    package static func load(_ path: String?, registry: PluginRegistry? = nil) throws -> PipelineSource {
        guard let path else { return .upright }
        if InlinePipeline.isInline(path) {
            return PipelineSource(text: try InlinePipeline.yaml(from: path), path: InlinePipeline.pathPrefix + path + "\"")
        }
        if !FileManager.default.fileExists(atPath: path), !path.contains("/"), !path.hasSuffix(".yaml"), !path.hasSuffix(".yml") {
            let named = Self.named
            let firstWord = path.split(whereSeparator: \.isWhitespace).first.map { String($0).trimmingCharacters(in: ["?"]) } ?? path
            if named[path] == nil, let registry, registry.plugin(named: firstWord) != nil {
                return PipelineSource(text: try InlinePipeline.yaml(from: path), path: InlinePipeline.pathPrefix + path + "\"")
            }
            guard let url = named[path] else {
                let plugins = registry.map { $0.available.map(\.description.id).flatMap { [$0, String($0.split(separator: ".").last ?? "")] } } ?? []
                throw MatteboxError(
                    "no pipeline file, named pipeline or plugin `\(path)`\(Suggestion.clause(for: path, among: named.keys.sorted() + plugins))",
                    hint: "named pipelines: \(named.keys.sorted().joined(separator: ", ")); `mattebox pipeline list` describes them, "
                        + "`mattebox plugins list` lists the plugins a one-stage pipeline can name",
                    commandLineMistake: true)
            }
            return PipelineSource(text: try PipelineFile.load(url.path).contents, path: url.path)
        }
        return PipelineSource(text: try PipelineFile.load(path).contents, path: path)
    }

    /// What a pipeline file does, from its leading comment: the first sentence.
    package static func summary(ofFileAt url: URL) -> String {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return "(unreadable)" }
        let comment = text.split(separator: "\n", omittingEmptySubsequences: false)
            .prefix { $0.hasPrefix("#") }
            .map { $0.dropFirst().trimmingCharacters(in: .whitespaces) }
            .joined(separator: " ")
        guard !comment.isEmpty else { return "(no description)" }
        // The first sentence, or clause before a colon: one line in a listing.
        let ends = [". ", ": "].compactMap { comment.range(of: $0)?.lowerBound }
        let sentence = String(comment[..<(ends.min() ?? comment.endIndex)]).trimmingCharacters(in: CharacterSet(charactersIn: ". "))
        guard sentence.count > 110 else { return sentence + "." }
        // Cut at a word, never inside one.
        let cut = sentence.prefix(100)
        return String(cut[..<(cut.lastIndex(of: " ") ?? cut.endIndex)]).trimmingCharacters(in: CharacterSet(charactersIn: " ,;")) + " …"
    }

    /// The named pipelines the data folders hold, by name.
    package static var named: [String: URL] { DataFolders.named(in: "pipelines", extensions: ["yaml", "yml"]) }

    /// Parses and validates against `registry`; `providedRoles` are the images
    /// the input brings besides the primary (attached with `--aux`).
    package func validate(registry: PluginRegistry, providedRoles: Set<ImageRole> = []) throws -> ValidatedPipeline {
        try PipelineValidator.validate(
            PipelineFile.parse(text, path: path).applying(settings), registry: registry, providedRoles: providedRoles)
    }
}
