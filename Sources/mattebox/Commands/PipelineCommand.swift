import ArgumentParser
import Foundation
import MatteboxCore
import MatteboxPipeline
import MatteboxPluginHost

/// `mattebox pipeline check`: validates a pipeline file without touching photos.
struct PipelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline", abstract: "Work with pipeline files.", subcommands: [Check.self])

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate a pipeline file against the installed plugins and list its stages.")

        @OptionGroup var verbosity: Verbosity
        @Argument(help: "The pipeline file (YAML), or the name of an installed pipeline (e.g. portrait-mattes).") var file: String
        @Option(name: .customLong("with-aux"), help: "Roles the input photos will carry (e.g. depth).")
        var providedRoles: [String] = []

        func run() throws {
            let registry = PluginRegistry.discoverForThisExecutable()
            let source = try PipelineSource.load(file)
            let validated = try source.validate(registry: registry, providedRoles: Set(providedRoles.map { ImageRole($0) }))
            print("\(source.path): \(validated.stages.count) stage(s), valid")
            for (number, stage) in validated.stages.enumerated() {
                let settings = stage.parameters.keys.sorted().map { "\($0)=\(stage.parameters[$0]!)" }.joined(separator: " ")
                print("  \(number + 1). \(stage.plugin.id)\(stage.required ? "" : " (optional)") \(settings)")
            }
        }
    }
}
