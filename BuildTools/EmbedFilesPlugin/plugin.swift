import Foundation
import PackagePlugin

/// Embeds the files under a target's `Assets` folder (wherever it sits in the
/// target, e.g. `Page/Assets`) as Swift strings at build time
/// (`EmbeddedFiles.byName`, keyed by path inside `Assets`), rebuilt whenever one changes.
@main
struct EmbedFilesPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let manager = FileManager.default
        let top = target.directoryURL
        let walker = manager.enumerator(at: top, includingPropertiesForKeys: [.isDirectoryKey])
        var assets: URL?
        while let url = walker?.nextObject() as? URL {
            if url.lastPathComponent == "Assets", (try? url.resourceValues(forKeys: [.isDirectoryKey]))?.isDirectory == true {
                assets = url
                break
            }
        }
        guard let assets else { throw EmbedError("\(target.name) has no Assets folder to embed") }
        var inputs: [URL] = []
        let files = manager.enumerator(at: assets, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = files?.nextObject() as? URL {
            if !url.lastPathComponent.hasPrefix("."), (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
                inputs.append(url)
            }
        }
        inputs.sort { $0.path < $1.path }
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("EmbeddedFiles.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) files from \(assets.path.dropFirst(top.path.count + 1)) into \(target.name)",
                executable: try context.tool(named: "embed-files").url,
                arguments: [output.path, assets.path] + inputs.map(\.path),
                inputFiles: inputs, outputFiles: [output])
        ]
    }
}

struct EmbedError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
