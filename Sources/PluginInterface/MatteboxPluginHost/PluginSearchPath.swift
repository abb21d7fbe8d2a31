import Foundation

/// Where plugins are looked for, in order: MATTEBOX_PLUGIN_PATH (a ':'-list),
/// the folder of the running executable when it holds plugins (the build
/// folder, uninstalled), the installed plugin folder beside it, the user's
/// folder, then the system folders. The first plugin found for an id wins.
package struct PluginSearchPath: Sendable {
    package static let folderName = "plugins-1"

    package var directories: [String]

    package init(directories: [String]) { self.directories = directories }

    /// The default search path for an executable at `executable`.
    package static func standard(
        executable: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> PluginSearchPath {
        var directories: [String] = []
        if let list = environment["MATTEBOX_PLUGIN_PATH"] {
            directories += list.split(separator: ":").map(String.init).filter { !$0.isEmpty }
        }
        let executableFolder = (executable as NSString).deletingLastPathComponent
        directories.append(executableFolder)
        directories.append(((executableFolder as NSString).deletingLastPathComponent as NSString)
            .appendingPathComponent("lib/mattebox/\(folderName)"))
        let dataHome = environment["XDG_DATA_HOME"] ?? (environment["HOME"].map { "\($0)/.local/share" } ?? "")
        if !dataHome.isEmpty { directories.append("\(dataHome)/mattebox/\(folderName)") }
        directories.append("/usr/local/lib/mattebox/\(folderName)")
        directories.append("/usr/lib/mattebox/\(folderName)")
        var seen = Set<String>()
        return PluginSearchPath(directories: directories.map { ($0 as NSString).standardizingPath }.filter {
            seen.insert($0).inserted
        })
    }

    /// Candidate plugin files: `*.so` directly in each folder (names starting
    /// with '.' or '@' are skipped), sorted within a folder, folders in order.
    package func candidateFiles() -> [String] {
        directories.flatMap { folder -> [String] in
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
            return names.filter { $0.hasSuffix(".so") && !$0.hasPrefix(".") && !$0.hasPrefix("@") }
                .sorted()
                .map { (folder as NSString).appendingPathComponent($0) }
        }
    }
}
