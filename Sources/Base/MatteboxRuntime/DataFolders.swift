import Foundation

/// Where Mattebox's shared data lives (named pipelines, the cameras example,
/// models), searched in order: the user's (`$XDG_DATA_HOME/mattebox`, else
/// `~/.local/share/mattebox`), the installation's (`share/mattebox` beside the
/// executable's `bin`), `/usr/local/share/mattebox`, `/usr/share/mattebox`,
/// and, for a build in a source checkout, its `Samples` folder.
package enum DataFolders {
    package static func all(environment: [String: String] = ProcessInfo.processInfo.environment) -> [URL] {
        var folders: [URL] = []
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            folders.append(URL(fileURLWithPath: data).appendingPathComponent("mattebox"))
        } else if let home = environment["HOME"], !home.isEmpty {
            folders.append(URL(fileURLWithPath: home).appendingPathComponent(".local/share/mattebox"))
        }
        let executable = URL(fileURLWithPath: HostExecutable.path).resolvingSymlinksInPath()
        folders.append(executable.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("share/mattebox"))
        folders.append(URL(fileURLWithPath: "/usr/local/share/mattebox"))
        folders.append(URL(fileURLWithPath: "/usr/share/mattebox"))
        if let checkout = checkoutSamples { folders.append(checkout) }
        var seen = Set<String>()
        return folders.filter { seen.insert($0.standardizedFileURL.path).inserted }
    }

    /// The first `relative` file in the data folders.
    package static func find(_ relative: String) -> URL? {
        all().map { $0.appendingPathComponent(relative) }.first { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// Every file in `folder` of the data folders with one of `extensions`, by name without extension (first wins).
    package static func named(in folder: String, extensions: Set<String>) -> [String: URL] {
        var found: [String: URL] = [:]
        for base in all() {
            let url = base.appendingPathComponent(folder)
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
            where extensions.contains((name as NSString).pathExtension.lowercased()) {
                let key = (name as NSString).deletingPathExtension
                if found[key] == nil { found[key] = url.appendingPathComponent(name) }
            }
        }
        return found
    }

    /// Samples/ of the source checkout this executable was built in (.build/CONFIG/mattebox).
    static var checkoutSamples: URL? {
        var folder = URL(fileURLWithPath: HostExecutable.path).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("Samples")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("cameras.yaml").path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return nil
    }
}
