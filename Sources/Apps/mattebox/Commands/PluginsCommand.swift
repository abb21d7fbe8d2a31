import ArgumentParser
import Foundation
import MatteboxCore
import MatteboxPluginHost
import MatteboxRuntime

/// `mattebox plugins`: what is installed, what each plugin takes, and the
/// scanner child that reads a plugin file without risking the caller.
struct PluginsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins", abstract: "List and inspect processor plugins.",
        subcommands: [List.self, Inspect.self, New.self, ScanFile.self], defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List every plugin on the search path, and every file refused with the reason.")

        @OptionGroup var verbosity: Verbosity
        @Flag(help: "Print JSON for scripts.") var json = false
        @Flag(help: "Scan every plugin file again instead of trusting the registry cache (~/.cache/mattebox).")
        var rescan = false

        func run() throws {
            let searchPath = PluginSearchPath.forThisExecutable
            let registry = PluginRegistry.discoverForThisExecutable(rescan: rescan)
            if json {
                try JSONOutput.print(ListReport(registry))
                return
            }
            print("Search path: \(searchPath.directories.joined(separator: ":"))")
            if registry.available.isEmpty { print("No plugins found.") }
            for entry in registry.available {
                let plugin = entry.description
                print("\(plugin.id)  \(plugin.version)  ABI \(plugin.abiVersion)  \(plugin.name)")
                print("    \(entry.path)")
            }
            for shadow in registry.shadowed {
                print("shadowed: \(shadow.id) in \(shadow.path) (using \(shadow.winner))")
            }
            for scan in registry.scans where scan.status != .ok && (!scan.isNotAPlugin || verbosity.verbose > 0) {
                print("\(scan.status.rawValue): \(scan.path)\n    \(scan.reason ?? "")")
            }
            let libraries = registry.scans.filter(\.isNotAPlugin).count
            if libraries > 0, verbosity.verbose == 0 {
                print("(\(libraries) other librar\(libraries == 1 ? "y" : "ies") on the search path \(libraries == 1 ? "is" : "are") not a plugin; -v lists them)")
            }
        }
    }

    struct New: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a new plugin folder to build, try and install: C or Swift, with a pipeline and a test photo.",
            discussion: """
                The plugin multiplies the primary image by a `gain` parameter, the smallest plugin that \
                shows the whole cycle; change its process function to do your work. In the folder: \
                `make` builds it, `make try` runs the test photo through pipeline.yaml, `make install` \
                copies it where mattebox finds it. A C plugin needs only a C compiler and the ABI \
                header (pkg-config mattebox-plugin, or this mattebox's own); a Swift plugin builds \
                against the SDK in a Mattebox checkout (this one's, or --sdk).

                  mattebox plugins new film-grain --lang c
                  cd film-grain && make try
                """)

        @OptionGroup var verbosity: Verbosity
        @Argument(help: "The plugin's name: lower-case words joined by hyphens (the folder and library name).") var name: String
        @Option(help: "c or swift.") var lang: String = "c"
        @Option(help: "The plugin id (reverse-DNS; default org.example.NAME).") var id: String?
        @Option(name: .shortAndLong, help: "The folder to write (default ./NAME); it must not exist.") var output: String?
        @Option(help: "The Mattebox checkout a Swift plugin builds on (default: the one this mattebox was built in).") var sdk: String?

        func run() throws {
            guard let language = PluginTemplate.Language(rawValue: lang) else {
                throw ValidationError("--lang is c or swift, not \(lang)")
            }
            let sdkFolder = sdk.map { URL(fileURLWithPath: $0).standardizedFileURL } ?? PluginTemplate.checkout
            if let sdkFolder, language == .swift,
                !FileManager.default.fileExists(atPath: sdkFolder.appendingPathComponent("Sources/PluginInterface/MatteboxPluginSDK").path)
            {
                throw ValidationError("--sdk must be a Mattebox checkout (with Sources/PluginInterface/MatteboxPluginSDK): \(sdkFolder.path)")
            }
            let template = try PluginTemplate(name: name, id: id, language: language, sdk: sdkFolder)
            let folder = URL(fileURLWithPath: output ?? name).standardizedFileURL
            let files = try template.write(to: folder)
            if !verbosity.quiet {
                print("Wrote the \(language == .c ? "C" : "Swift") plugin \(template.id) in \(folder.path):")
                for file in files { print("  \(file)") }
                print("Next: cd \(folder.path) && make try")
            }
        }
    }

    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Describe a plugin: inputs, outputs and typed parameters with defaults and ranges.")

        @OptionGroup var verbosity: Verbosity
        @Argument(help: "The plugin id (org.mattebox.orientation), or its last part when only one plugin has it (orientation).", completion: Completions.pluginIDs) var id: String
        @Flag(help: "Print JSON for scripts.") var json = false
        @Flag(help: "Print the reference (inputs, outputs, parameters) as Markdown, as the plugin's README holds it.") var markdown = false

        func run() throws {
            guard !(json && markdown) else { throw ValidationError("--json and --markdown are two ways to print; choose one") }
            let registry = PluginRegistry.discoverForThisExecutable()
            guard let entry = registry.plugin(named: id) else {
                let ids = registry.available.map(\.description.id)
                let known = ids.joined(separator: ", ")
                let names = ids + ids.compactMap { $0.split(separator: ".").last.map(String.init) }
                throw ValidationError(
                    "no plugin \(id) on the search path\(Suggestion.clause(for: id, among: names)) (found: \(known.isEmpty ? "none" : known))")
            }
            if json {
                try JSONOutput.print(InspectReport(path: entry.path, plugin: entry.description))
            } else if markdown {
                print(PluginInspection.markdown(entry.description))
            } else {
                print(PluginInspection.text(entry.description, path: entry.path))
            }
        }
    }

    /// The child side of out-of-process scanning: load one file, print JSON.
    struct ScanFile: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "scan-file", abstract: "Load one plugin file and print its descriptors as JSON (used internally).",
            shouldDisplay: false)

        @Argument var path: String

        func run() throws {
            try JSONOutput.print(PluginScanner.inspectInProcess(path))
        }
    }
}

struct ListReport: Encodable {
    struct Entry: Encodable {
        var id: String
        var name: String
        var version: String
        var abiVersion: String
        var path: String
    }

    var plugins: [Entry]
    var rejected: [PluginScanResult]
    var shadowed: [[String: String]]

    init(_ registry: PluginRegistry) {
        plugins = registry.available.map {
            Entry(id: $0.description.id, name: $0.description.name, version: $0.description.version,
                  abiVersion: $0.description.abiVersion, path: $0.path)
        }
        rejected = registry.scans.filter { $0.status != .ok }
        shadowed = registry.shadowed.map { ["id": $0.id, "path": $0.path, "using": $0.winner] }
    }
}

struct InspectReport: Encodable {
    var path: String
    var plugin: PluginDescription
}
