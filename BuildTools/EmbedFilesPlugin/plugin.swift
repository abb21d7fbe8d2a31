import Foundation
import PackagePlugin

/// Embeds the files in a target's `Page/Assets` folder as Swift strings at build
/// time (`EmbeddedFiles.byName`), rebuilt whenever one of them changes.
@main
struct EmbedFilesPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let folder = target.directoryURL.appendingPathComponent("Page/Assets")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.sorted()
        let inputs = names.map { folder.appendingPathComponent($0) }
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("EmbeddedFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(names.joined(separator: ", ")) into \(target.name)",
                executable: try context.tool(named: "embed-files").url,
                arguments: [output.path] + inputs.map(\.path),
                inputFiles: inputs, outputFiles: [output])
        ]
    }
}
