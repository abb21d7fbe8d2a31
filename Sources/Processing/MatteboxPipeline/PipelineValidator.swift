import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxPluginHost
import MatteboxRuntime

/// A stage whose plugin exists and whose parameters are typed and in range.
package struct ValidatedStage: Sendable {
    package var plugin: PluginDescription
    package var required: Bool
    package var parameters: [String: ParameterValue]
}

/// A pipeline that passed validation: nothing about it can fail before pixels
/// flow except the plugins themselves.
package struct ValidatedPipeline: Sendable {
    package var file: PipelineFile
    package var stages: [ValidatedStage]
}

/// Checks a pipeline file against the plugins on the search path before any
/// photo is decoded: unknown plugins and parameters, wrong types, values out of
/// range, and stages that need an image role nothing earlier provides. It
/// reports every problem at once, each with its line.
package enum PipelineValidator {
    /// Plugin files the scan refused, with why: the plugin asked for may be one of them.
    static func refusedFiles(_ registry: PluginRegistry) -> String {
        let refused = registry.scans.filter { $0.status != .ok && !$0.isNotAPlugin }
        guard !refused.isEmpty else { return "" }
        return "; refused plugin files: " + refused.map { "\($0.path) (\($0.status.rawValue): \($0.reason ?? "?"))" }.joined(separator: "; ")
    }

    package static func validate(
        _ file: PipelineFile, registry: PluginRegistry, providedRoles: Set<ImageRole> = [.primary]
    ) throws -> ValidatedPipeline {
        var issues: [PipelineError.Issue] = []
        var stages: [ValidatedStage] = []
        var available = providedRoles.union([.primary])
        var optionalProviders: [ImageRole: String] = [:]  // role → the first stage that may make it
        for (number, stage) in file.stages.enumerated() {
            // A stage names a plugin by id, or by the id's last part when only one plugin has it
            // (`portrait-matte` for org.mattebox.portrait-matte), as inline pipelines do.
            guard let plugin = registry.plugin(named: stage.plugin)?.description else {
                let ids = registry.available.map(\.description.id).sorted()
                let known = ids.joined(separator: ", ")
                issues.append(.init(
                    line: stage.line,
                    message: "unknown plugin `\(stage.plugin)`\(Suggestion.clause(for: stage.plugin, among: ids + ids.compactMap { $0.split(separator: ".").last.map(String.init) })) (found: \(known.isEmpty ? "none" : known))"
                        + refusedFiles(registry)))
                continue
            }
            var values: [String: ParameterValue] = [:]
            for (key, raw) in stage.parameters {
                // Line 0: set on the command line (--set), not in the file.
                let line = raw.line > 0 ? raw.line : nil, origin = raw.line > 0 ? "" : "\(raw.origin ?? "--set"): "
                guard let spec = plugin.parameter(key) else {
                    let keys = plugin.parameters.map(\.key)
                    let known = keys.joined(separator: ", ")
                    issues.append(.init(
                        line: line,
                        message: origin + "unknown parameter `\(key)` for \(plugin.id)\(Suggestion.clause(for: key, among: keys)) (known: \(known.isEmpty ? "none" : known))"))
                    continue
                }
                do {
                    values[key] = try typedValue(raw, for: spec)
                } catch let error as MatteboxError {
                    issues.append(.init(line: line, message: origin + "\(plugin.id) parameter `\(key)`: \(error.message)"))
                }
            }
            // An optional stage may rely on what an earlier stage makes only when it can: without it, it is skipped.
            for input in plugin.inputs where !input.optional && !available.contains(input.role)
                && (stage.required || optionalProviders[input.role] == nil)
            {
                issues.append(.init(
                    line: stage.line,
                    message: "stage \(number + 1) (\(plugin.id)) requires `\(input.role)`, which "
                        + (optionalProviders[input.role].map {
                            "\($0) makes only when it can (an optional output), so give this stage `required: false` (skipped when it is missing) or put a stage before it that always makes it"
                        } ?? "neither the input nor an earlier stage provides")))
            }
            available.formUnion(plugin.outputs.filter { !$0.optional }.map(\.role))
            for output in plugin.outputs where output.optional && optionalProviders[output.role] == nil {
                optionalProviders[output.role] = "stage \(number + 1) (\(plugin.id))"
            }
            stages.append(ValidatedStage(plugin: plugin, required: stage.required, parameters: values))
        }
        guard issues.isEmpty else { throw PipelineError(path: file.path, issues: issues) }
        return ValidatedPipeline(file: file, stages: stages)
    }

    static func typedValue(_ raw: PipelineFile.RawValue, for spec: ParameterSpec) throws -> ParameterValue {
        let text = raw.text
        switch spec.type {
        case .bool:
            switch raw.quoted ? "" : text.lowercased() {
            case "true", "yes", "on": return .bool(true)
            case "false", "no", "off": return .bool(false)
            default: throw MatteboxError("expected true or false, got \(quoted(raw))")
            }
        case .int:
            guard !raw.quoted, let value = Int64(text) else { throw MatteboxError("expected an integer, got \(quoted(raw))") }
            try checkRange(Double(value), spec)
            return .int(value)
        case .double:
            guard !raw.quoted, let value = Double(text), value.isFinite else {
                throw MatteboxError("expected a number, got \(quoted(raw))")
            }
            try checkRange(value, spec)
            return .double(value)
        case .string:
            return .string(text)
        case .enumeration:
            guard spec.enumValues.contains(text) else {
                throw MatteboxError("expected one of \(spec.enumValues.joined(separator: ", ")), got \(quoted(raw))")
            }
            return .string(text)
        }
    }

    private static func quoted(_ raw: PipelineFile.RawValue) -> String { raw.quoted ? "\"\(raw.text)\"" : raw.text }

    private static func checkRange(_ value: Double, _ spec: ParameterSpec) throws {
        if let minimum = spec.minimum, value < minimum {
            throw MatteboxError("\(format(value)) is below the minimum \(format(minimum))")
        }
        if let maximum = spec.maximum, value > maximum {
            throw MatteboxError("\(format(value)) is above the maximum \(format(maximum))")
        }
    }

    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

extension ValidatedPipeline {
    /// The plugin that packages photos as HEIF: it sets `output.format` to heic,
    /// avif, or heif (the run's HEIF format: AVIF with `--format avif`, else HEIC).
    package static let heifPackagingPlugin = "org.mattebox.heif"

    /// Fails when the format asked for on the command line conflicts with a
    /// stage that decides the format itself, naming both: a request is never
    /// silently overridden. A HEIF format (heic, avif) agrees with the stage
    /// unless the stage names the other one; another format (jpeg, png) agrees
    /// with a stage whose format is auto when the auxiliary images it packages
    /// go beside the photo as PNG files (`auxiliaryBeside`, --aux-png), so
    /// nothing the stage was there to keep is lost.
    package func checkOutputFormat(_ format: OutputFormat?, auxiliaryBeside: Bool = false) throws {
        guard let format, let index = stages.firstIndex(where: { $0.plugin.id == Self.heifPackagingPlugin }) else { return }
        let named: String? = if case .string(let value)? = stages[index].parameters["format"], value != "auto" { value } else { nil }
        let writes = named ?? "HEIF (HEIC or AVIF)"
        if format.isHEIF, named == nil || named == format.rawValue { return }
        if !format.isHEIF, named == nil, auxiliaryBeside { return }
        // An inline pipeline's line numbers are those of the YAML made from it: it names the stage's place instead.
        let line = index >= file.stages.count ? ""
            : file.path.hasPrefix(InlinePipeline.pathPrefix) ? " (stage \(index + 1))" : ":\(file.stages[index].line)"
        let hint: String
        if format.isHEIF {
            hint = "drop --format, or the stage's format parameter"
        } else if named == nil {
            hint = "add --aux-png to write a \(format) with the depth and mattes beside it as PNG files, or drop --format to write HEIC"
        } else {
            hint = "drop --format, or set the stage's format to auto and add --aux-png for a \(format) with the depth and mattes beside it as PNG files"
        }
        throw MatteboxError(
            "--format \(format) conflicts with the \(Self.heifPackagingPlugin) stage at \(file.path)\(line), which writes \(writes)",
            hint: hint, commandLineMistake: true)
    }
}
