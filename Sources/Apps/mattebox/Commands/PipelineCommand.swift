import ArgumentParser
import Foundation
import MatteboxCore
import MatteboxPipeline
import MatteboxPluginHost

/// `mattebox pipeline`: the named pipelines (list, show) and checking a pipeline
/// file without touching photos.
struct PipelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline", abstract: "List, show and check pipelines.", subcommands: [List.self, Show.self, Check.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The named pipelines (for --pipeline NAME): name, what it does, and the file it comes from.")

        @OptionGroup var verbosity: Verbosity
        @Flag(help: "Print JSON.") var json = false

        struct Entry: Encodable {
            var name: String
            var summary: String
            var path: String
        }

        func run() throws {
            let entries = PipelineSource.named.sorted { $0.key < $1.key }.map { name, url in
                Entry(name: name, summary: PipelineSource.summary(ofFileAt: url), path: url.path)
            }
            if json {
                try JSONOutput.print(entries)
                return
            }
            if entries.isEmpty { print("No named pipelines found (they are pipelines/NAME.yaml in the data folders).") }
            let width = entries.map(\.name.count).max() ?? 0
            for entry in entries {
                print("\(entry.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(entry.summary)")
                print("\(String(repeating: " ", count: width))  \(entry.path)")
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a named pipeline's file (or any pipeline file), with its path.")

        @OptionGroup var verbosity: Verbosity
        @Argument(help: "The name of an installed pipeline (e.g. portrait-mattes), or a pipeline file.") var name: String

        func run() throws {
            let source = try PipelineSource.load(name)
            print("# \(source.path)")
            print(source.text, terminator: source.text.hasSuffix("\n") ? "" : "\n")
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate a pipeline file against the installed plugins and list its stages.")

        @OptionGroup var verbosity: Verbosity
        @Argument(help: "The pipeline file (YAML), or the name of an installed pipeline (e.g. portrait-mattes).") var file: String
        @Option(name: .customLong("with-aux"), help: "Roles the input photos will carry (e.g. depth).")
        var providedRoles: [String] = []

        func run() throws {
            let registry = PluginRegistry.discoverForThisExecutable()
            let source = try PipelineSource.load(file, registry: registry)
            let validated = try source.validate(registry: registry, providedRoles: Set(providedRoles.map { ImageRole($0) }))
            print("\(source.path): \(validated.stages.count) stage(s), valid")
            for (number, stage) in validated.stages.enumerated() {
                let settings = stage.parameters.keys.sorted().map { "\($0)=\(stage.parameters[$0]!)" }.joined(separator: " ")
                print("  \(number + 1). \(stage.plugin.id)\(stage.required ? "" : " (optional)") \(settings)")
            }
        }
    }
}
