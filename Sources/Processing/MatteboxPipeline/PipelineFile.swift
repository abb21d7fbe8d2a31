import Foundation
import MatteboxCore
import MatteboxRuntime
import Yams

/// A pipeline as written in its YAML file: stages in order, each naming a
/// plugin by id with its parameters. Every element remembers its line so
/// validation errors can point at it.
///
///     # pipelines/portrait.yaml
///     stages:
///       - plugin: org.mattebox.orientation
///         params: { mode: normalize, strip-location: true }
///       - plugin: org.mattebox.mirroring
///         required: false
///         params: { policy: auto }
package struct PipelineFile: Sendable {
    /// A parameter value as written: its text, whether it was quoted, its line.
    package struct RawValue: Sendable, Equatable {
        package var text: String
        package var quoted: Bool
        package var line: Int
        /// For a value set outside the file (line 0), where it was set, as messages name it ("--set", "--aperture").
        package var origin: String? = nil
    }

    package struct Stage: Sendable {
        package var plugin: String
        /// A required stage's failure fails the photo; an optional one is skipped.
        package var required: Bool
        package var parameters: [(key: String, value: RawValue)]
        package var line: Int
    }

    package var path: String
    package var stages: [Stage]
    /// The file's bytes, hashed into output manifests so a changed pipeline re-runs.
    package var contents: String

    package static func load(_ path: String) throws -> PipelineFile {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw MatteboxError("cannot read pipeline file \(path): \(SystemError.describe(error))")
        }
        return try parse(text, path: path)
    }

    package static func parse(_ text: String, path: String) throws -> PipelineFile {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw PipelineError(path: path, issues: [.init(line: nil, message: "not valid YAML: \(error)")])
        }
        var issues: [PipelineError.Issue] = []
        guard let root, let mapping = root.mapping else {
            throw PipelineError(path: path, issues: [.init(line: root?.mark?.line, message: "expected a mapping with a `stages:` list")])
        }
        for (key, _) in mapping where key.string != "stages" && key.string != "name" && key.string != "description" {
            issues.append(.init(line: key.mark?.line, message: "unknown key `\(key.string ?? "?")` (expected stages, name, description)"))
        }
        guard let stagesNode = mapping["stages"], let list = stagesNode.sequence else {
            issues.append(.init(line: root.mark?.line, message: "missing `stages:` list"))
            throw PipelineError(path: path, issues: issues)
        }
        var stages: [Stage] = []
        for item in list {
            let line = item.mark?.line ?? 0
            guard let fields = item.mapping else {
                issues.append(.init(line: line, message: "a stage is a mapping with `plugin:` and optional `params:`"))
                continue
            }
            var stage = Stage(plugin: "", required: true, parameters: [], line: line)
            for (key, value) in fields {
                switch key.string {
                case "plugin":
                    stage.plugin = value.string ?? ""
                case "required":
                    guard let flag = value.bool else {
                        issues.append(.init(line: value.mark?.line, message: "`required` takes true or false"))
                        continue
                    }
                    stage.required = flag
                case "params":
                    guard let parameters = value.mapping else {
                        if value.null == nil {
                            issues.append(.init(line: value.mark?.line, message: "`params` is a mapping of key: value"))
                        }
                        continue
                    }
                    for (name, setting) in parameters {
                        guard let scalar = setting.scalar else {
                            issues.append(.init(line: setting.mark?.line, message: "parameter `\(name.string ?? "?")` takes a single value"))
                            continue
                        }
                        stage.parameters.append((
                            name.string ?? "",
                            RawValue(text: scalar.string, quoted: scalar.style != .plain && scalar.style != .any,
                                     line: setting.mark?.line ?? line)))
                    }
                default:
                    issues.append(.init(line: key.mark?.line, message: "unknown stage key `\(key.string ?? "?")` (expected plugin, required, params)"))
                }
            }
            if stage.plugin.isEmpty {
                issues.append(.init(line: line, message: "stage has no `plugin:` id"))
            } else {
                stages.append(stage)
            }
        }
        guard issues.isEmpty else { throw PipelineError(path: path, issues: issues) }
        return PipelineFile(path: path, stages: stages, contents: text)
    }
}

/// Everything wrong with a pipeline file, each with its line.
package struct PipelineError: Error, CustomStringConvertible, Sendable {
    package struct Issue: Sendable {
        package var line: Int?
        package var message: String
    }

    package var path: String
    package var issues: [Issue]

    package var description: String {
        // An inline pipeline's line numbers are those of the YAML made from it: its messages name the stage instead.
        let lines = !path.hasPrefix(InlinePipeline.pathPrefix)
        return issues.map { issue in "\(path)\(lines ? issue.line.map { ":\($0)" } ?? "" : ""): \(issue.message)" }
            .joined(separator: "\n")
    }
}
