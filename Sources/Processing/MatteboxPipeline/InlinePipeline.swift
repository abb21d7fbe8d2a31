import Foundation
import MatteboxRuntime

/// A pipeline written on the command line, as `gst-launch` writes one:
/// stages joined by `!`, each a plugin (its id, or the id's last part) with
/// `KEY=VALUE` parameters, `?` before an optional one:
///
///     orientation ! portrait-matte effort=quality ! ?semantic-mattes ! heif
///
/// It becomes the same YAML a pipeline file holds, so it is validated, hashed
/// for `--resume` and sent to workers like any other.
package enum InlinePipeline {
    /// How messages name an inline pipeline: `the pipeline "orientation ! heif"`.
    package static let pathPrefix = "the pipeline \""

    /// Whether `text` is an inline pipeline rather than a file or a name.
    package static func isInline(_ text: String) -> Bool { text.contains("!") && !FileManager.default.fileExists(atPath: text) }

    /// The pipeline file text for `text`; throws a command-line mistake naming the part that is wrong.
    package static func yaml(from text: String) throws -> String {
        var lines = ["# Inline pipeline: \(text.replacingOccurrences(of: "\n", with: " "))", "stages:"]
        for (number, element) in text.split(separator: "!", omittingEmptySubsequences: false).enumerated() {
            var words = element.split(whereSeparator: \.isWhitespace).map(String.init)
            guard var plugin = words.first, !words.isEmpty else {
                throw MatteboxError("the pipeline \"\(text)\" has an empty stage (stage \(number + 1))", commandLineMistake: true)
            }
            words.removeFirst()
            let optional = plugin.hasPrefix("?")
            if optional { plugin.removeFirst() }
            guard plugin.range(of: #"^[A-Za-z0-9][A-Za-z0-9._-]*$"#, options: .regularExpression) != nil else {
                throw MatteboxError("stage \(number + 1) of the pipeline: `\(plugin)` is not a plugin id", commandLineMistake: true)
            }
            lines.append("  - plugin: \(plugin)")
            if optional { lines.append("    required: false") }
            if !words.isEmpty { lines.append("    params:") }
            for word in words {
                guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                    throw MatteboxError(
                        "stage \(number + 1) of the pipeline (\(plugin)): `\(word)` should be KEY=VALUE", commandLineMistake: true)
                }
                let key = word[..<equals], value = word[word.index(after: equals)...]
                guard key.range(of: #"^[A-Za-z0-9_-]+$"#, options: .regularExpression) != nil else {
                    throw MatteboxError("stage \(number + 1) of the pipeline (\(plugin)): `\(key)` is not a parameter name", commandLineMistake: true)
                }
                lines.append("      \(key): \(yamlScalar(String(value)))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A plain scalar when it is one; else double-quoted with JSON's escapes (which YAML reads).
    private static func yamlScalar(_ value: String) -> String {
        if value.range(of: #"^[A-Za-z0-9._+/-]+$"#, options: .regularExpression) != nil { return value }
        let data = (try? JSONEncoder().encode(value)) ?? Data("\"\"".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
