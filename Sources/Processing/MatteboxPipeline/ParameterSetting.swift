import Foundation
import MatteboxRuntime

/// A parameter set on the command line (`--set STAGE.KEY=VALUE`), as
/// `gst-launch` sets element properties inline: it replaces or adds the
/// parameter in every stage of the pipeline whose plugin id is STAGE or ends
/// in `.STAGE` (`portrait-matte.effort=quality` sets org.mattebox.portrait-matte's
/// effort). The value is typed and range-checked like a value in the file.
package struct ParameterSetting: Sendable, Codable, Equatable, CustomStringConvertible {
    package var stage: String
    package var key: String
    package var value: String
    /// Where it was set, as messages name it: nil for `--set`, else e.g. "--aperture" (render) or "the Portrait control".
    package var origin: String?

    package init(stage: String, key: String, value: String, origin: String? = nil) {
        self.stage = stage
        self.key = key
        self.value = value
        self.origin = origin
    }

    /// Parses `STAGE.KEY=VALUE`; the key is what follows the last dot before `=`.
    package init(parsing text: String) throws {
        guard let equals = text.firstIndex(of: "="), let dot = text[..<equals].lastIndex(of: "."),
            dot > text.startIndex, text.index(after: dot) < equals
        else {
            throw MatteboxError(
                "--set \(text): expected STAGE.KEY=VALUE, e.g. portrait-matte.effort=quality", commandLineMistake: true)
        }
        stage = String(text[..<dot])
        key = String(text[text.index(after: dot)..<equals])
        value = String(text[text.index(after: equals)...])
    }

    package var description: String { "\(stage).\(key)=\(value)" }

    package func matches(_ pluginID: String) -> Bool { pluginID == stage || pluginID.hasSuffix("." + stage) }
}

extension PipelineFile {
    /// The file with `settings` applied; its contents record them, so a batch's
    /// fingerprint (and `--resume`) tells runs with different settings apart.
    package func applying(_ settings: [ParameterSetting]) throws -> PipelineFile {
        guard !settings.isEmpty else { return self }
        var file = self
        for setting in settings {
            let matching = file.stages.indices.filter { setting.matches(file.stages[$0].plugin) }
            guard !matching.isEmpty else {
                let ids = file.stages.map(\.plugin)
                throw MatteboxError(
                    "--set \(setting): no stage of \(path) runs `\(setting.stage)`"
                        + Suggestion.clause(for: setting.stage, among: ids + ids.map { $0.components(separatedBy: ".").last ?? $0 }),
                    hint: "its stages: \(ids.joined(separator: ", "))", commandLineMistake: true)
            }
            let raw = RawValue(text: setting.value, quoted: false, line: 0, origin: setting.origin)
            for index in matching {
                file.stages[index].parameters.removeAll { $0.key == setting.key }
                file.stages[index].parameters.append((setting.key, raw))
            }
            file.contents += "\n# --set \(setting)"
        }
        return file
    }
}
