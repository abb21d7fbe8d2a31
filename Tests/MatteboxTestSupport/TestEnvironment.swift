import Foundation
import MatteboxCore
import MatteboxRuntime

/// Paths and helpers the tests share: the package root, the folder where
/// `swift build` put the mattebox command and the plugins, scratch folders,
/// and running commands.
package enum TestEnvironment {
    package static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    /// Where the built products are (`make test` passes MATTEBOX_BIN_DIR). Without
    /// it, `.build/debug` is used and named, with a warning when a source file is
    /// newer than its mattebox (a stale binary would test old code).
    package static let binDirectory: URL = {
        if let path = ProcessInfo.processInfo.environment["MATTEBOX_BIN_DIR"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let folder = packageRoot.appendingPathComponent(".build/debug").resolvingSymlinksInPath()
        let binary = folder.appendingPathComponent("mattebox")
        let built = (try? FileManager.default.attributesOfItem(atPath: binary.path)[.modificationDate] as? Date) ?? .distantPast
        let sources = FileManager.default.enumerator(at: packageRoot.appendingPathComponent("Sources"), includingPropertiesForKeys: [.contentModificationDateKey])
        let newest = (sources?.allObjects as? [URL] ?? []).compactMap {
            try? $0.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate
        }.max() ?? .distantPast
        print("tests use \(binary.path) (MATTEBOX_BIN_DIR not set; `make test` sets it)"
            + (newest > built ? " — WARNING: sources changed since it was built; run `swift build` first" : ""))
        return folder
    }()

    package static var mattebox: String { binDirectory.appendingPathComponent("mattebox").path }

    package static func plugin(_ product: String) -> String {
        binDirectory.appendingPathComponent("lib\(product).so").path
    }

    /// The header plugins compile against.
    package static var abiIncludeDirectory: String {
        packageRoot.appendingPathComponent("Sources/PluginInterface/CMatteboxPluginABI/include").path
    }

    package static var fixtures: URL { packageRoot.appendingPathComponent("Tests/Fixtures") }

    /// ../shared beside the checkout, when present (CI has it; a user's clone may not).
    package static var shared: URL? {
        let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// A new empty folder, owner-only writable, removed by the caller if it likes.
    package static func scratchDirectory(_ name: String = "mattebox-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(name)-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        chmod(url.path, 0o755)
        return url
    }

    package struct CommandResult: Sendable {
        package var status: Int32
        package var output: String
        package var errors: String
        package var signalled: Bool
    }

    /// Where the commands the tests run keep their cache (the plugin registry)
    /// and look for their configuration (cameras): folders of this test run,
    /// not the user's. The user's data folder stays, so installed models are found.
    /// Their sysfs and procfs root (MATTEBOX_SYSTEM_ROOT) is an empty folder:
    /// the machine's thermal state and CPU load, and its real cameras, do not
    /// change what a test sees; a test that wants a state makes its own tree.
    package static let isolatedFolders: [String: String] = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mattebox-test-home-\(getpid())")
        var folders: [String: String] = [:]
        for (variable, name) in [("XDG_CACHE_HOME", "cache"), ("XDG_CONFIG_HOME", "config"), ("MATTEBOX_SYSTEM_ROOT", "system")] {
            let folder = root.appendingPathComponent(name)
            try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            folders[variable] = folder.path
        }
        return folders
    }()

    /// Runs a command to completion (killed after `timeout` seconds), with
    /// `environment` added to this process's and the cache and configuration
    /// folders of this test run (`isolatedFolders`) unless `environment` names others.
    package static func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 120
    ) -> CommandResult {
        let environment = isolatedFolders.merging(environment) { _, given in given }
        var arguments = arguments
        if let program = arguments.first, !program.contains("/") {
            // A bare name is found on PATH, as a shell would (a test once ran "heif-info",
            // which failed to start, and its cross-check was silently skipped).
            let found = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
                .map { "\($0)/\(program)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
            arguments[0] = found ?? program
        }
        switch ChildProcess(arguments: arguments, environment: environment).run(timeout: timeout) {
        case .exited(let code, let output, let errors):
            return CommandResult(
                status: code, output: String(decoding: output, as: UTF8.self),
                errors: String(decoding: errors, as: UTF8.self), signalled: false)
        case .signalled(let signal):
            return CommandResult(status: signal, output: "", errors: "signal \(signal)", signalled: true)
        case .timedOut:
            return CommandResult(status: -1, output: "", errors: "timed out", signalled: true)
        case .failedToStart(let reason):
            return CommandResult(status: -1, output: "", errors: reason, signalled: false)
        }
    }

    /// Compiles a C plugin with `cc -shared` against the ABI header alone.
    /// `defines` are passed as -D (one source, several variants).
    package static func compilePlugin(_ source: URL, into folder: URL, name: String? = nil, defines: [String] = []) throws -> String {
        let output = folder.appendingPathComponent(name ?? (source.deletingPathExtension().lastPathComponent + ".so")).path
        let result = run([
            "/usr/bin/cc", "-shared", "-fPIC", "-fvisibility=hidden", "-Wall", "-Werror", "-I", abiIncludeDirectory,
        ] + defines.map { "-D\($0)" } + ["-o", output, source.path])
        guard result.status == 0 else {
            throw MatteboxError("cc failed on \(source.path): \(result.errors)")
        }
        chmod(output, 0o755)
        return output
    }
}
