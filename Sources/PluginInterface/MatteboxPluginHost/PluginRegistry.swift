import Foundation
import MatteboxCore
import MatteboxRuntime
import Synchronization

/// The plugins found on the search path: which file provides each id, which
/// files were refused and why, and which ids were shadowed by an earlier file.
/// It loads a plugin's module into this process only when a pipeline uses it.
package struct PluginRegistry: Sendable {
    package struct Available: Sendable {
        package var path: String
        package var description: PluginDescription
    }

    package struct Shadowed: Sendable {
        package var id: String
        package var path: String
        package var winner: String
    }

    package private(set) var scans: [PluginScanResult] = []
    package private(set) var available: [Available] = []
    package private(set) var shadowed: [Shadowed] = []

    package init(scans: [PluginScanResult]) {
        self.scans = scans
        for scan in scans where scan.status == .ok {
            for plugin in scan.plugins {
                if let winner = available.first(where: { $0.description.id == plugin.id }) {
                    shadowed.append(Shadowed(id: plugin.id, path: scan.path, winner: winner.path))
                } else {
                    available.append(Available(path: scan.path, description: plugin))
                }
            }
        }
    }

    /// Scans every candidate file of the search path out of process; with a
    /// cache, files unchanged since their last scan are not scanned again
    /// (their safety is still checked), and `rescan` ignores what it holds.
    package static func discover(
        searchPath: PluginSearchPath, scanner: PluginScanner, cache: PluginScanCache? = nil, rescan: Bool = false
    ) -> PluginRegistry {
        guard let cache else { return PluginRegistry(scans: searchPath.candidateFiles().map(scanner.scan)) }
        let known = rescan ? [:] : cache.load()
        var fresh: [PluginScanCache.Key: PluginScanResult] = [:]
        let scans = searchPath.candidateFiles().map { path -> PluginScanResult in
            do {
                try PluginFileSafety.check(path)
            } catch {
                return .refused(path, .rejected, "\(error)")
            }
            guard let key = PluginScanCache.Key(path) else { return scanner.scan(path) }
            var result = known[key] ?? scanner.scan(path)
            result.path = path
            fresh[key] = result
            return result
        }
        if fresh.count != known.count || fresh.contains(where: { known[$0.key] != $0.value }) { cache.save(fresh) }
        return PluginRegistry(scans: scans)
    }

    package func plugin(_ id: String) -> Available? { available.first { $0.description.id == id } }

    /// A plugin by its id, or by the id's last part when only one plugin has
    /// it (`portrait-matte` for org.mattebox.portrait-matte): the one rule for
    /// pipelines, inline pipelines, `--set` and `plugins inspect`.
    package func plugin(named name: String) -> Available? {
        if let exact = plugin(name) { return exact }
        let byLastPart = available.filter { $0.description.id.hasSuffix("." + name) }
        return byLastPart.count == 1 ? byLastPart.first : nil
    }

    /// A new instance of a plugin with the given (already validated) parameters.
    package func instantiate(_ id: String, parameters: [String: ParameterValue]) throws -> PluginInstance {
        guard let entry = plugin(id) else {
            throw MatteboxError("no plugin with id \(id) on the search path", hint: "see `mattebox plugins list`")
        }
        return try PluginInstance(module: try PluginRegistry.module(at: entry.path), id: id, parameters: parameters)
    }

    private static let modules = Mutex<[String: PluginModule]>([:])

    /// Loads a module once per process; modules are never unloaded.
    static func module(at path: String) throws -> PluginModule {
        try modules.withLock { loaded in
            if let module = loaded[path] { return module }
            do {
                // The file may have changed since it was scanned: its safety is checked at every load.
                try PluginFileSafety.check(path)
                let module = try PluginModule(path: path)
                loaded[path] = module
                return module
            } catch {
                throw MatteboxError("\(path): \(error)")
            }
        }
    }
}

extension PluginRegistry {
    /// The plugins this executable sees: the standard search path around it,
    /// each file scanned out of process by this executable. Every command and
    /// every batch worker discovers plugins this one way.
    package static func discoverForThisExecutable(rescan: Bool = false) -> PluginRegistry {
        discover(
            searchPath: .forThisExecutable, scanner: .using(executable: HostExecutable.path),
            cache: PluginScanCache.standardLocation().map { PluginScanCache(file: $0, hostABI: DescriptorReader.hostABI) },
            rescan: rescan)
    }
}

extension PluginSearchPath {
    /// The standard search path around the running executable.
    package static var forThisExecutable: PluginSearchPath { .standard(executable: HostExecutable.path) }
}
