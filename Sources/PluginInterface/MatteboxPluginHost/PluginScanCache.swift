import Foundation
import MatteboxRuntime

/// What earlier scans found, kept on disk as GStreamer keeps its registry, so
/// a command does not start a child process per plugin file every time. An
/// entry counts only for the same file: real path, device, inode, size and
/// modification time (to the nanosecond); the whole cache counts only for the
/// same Mattebox version and plugin ABI. Crashes and hangs are never cached
/// (they may not happen again); the file safety checks are not cached at all:
/// they run before every scan and every load.
package struct PluginScanCache: Sendable {
    /// One file as it was when scanned.
    package struct Key: Codable, Hashable, Sendable {
        package var path: String
        package var device: UInt64
        package var inode: UInt64
        package var size: Int64
        package var modified: Int64

        /// The key of the file at `path` now (its real path), or nil when it cannot be read.
        package init?(_ path: String) {
            let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            var status = stat()
            guard stat(real, &status) == 0 else { return nil }
            self.path = real
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        }
    }

    private struct Stored: Codable {
        var mattebox: String
        var hostABI: String
        var entries: [Entry]
    }

    private struct Entry: Codable {
        var key: Key
        var result: PluginScanResult
    }

    package let file: URL
    private let hostABI: String

    package init(file: URL, hostABI: String) {
        self.file = file
        self.hostABI = hostABI
    }

    /// `$XDG_CACHE_HOME/mattebox/plugin-registry.json` (or `~/.cache/...`); nil
    /// when neither is set (then every command scans).
    package static func standardLocation(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL? {
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? environment["HOME"].map { "\($0)/.cache" }
        return base.map { URL(fileURLWithPath: $0).appendingPathComponent("mattebox/plugin-registry.json") }
    }

    /// The cached results by file, or none when the cache is missing, unreadable or from another version.
    package func load() -> [Key: PluginScanResult] {
        guard let data = try? Data(contentsOf: file), let stored = try? JSONDecoder().decode(Stored.self, from: data),
            stored.mattebox == MatteboxVersion.current, stored.hostABI == hostABI
        else { return [:] }
        return Dictionary(stored.entries.map { ($0.key, $0.result) }, uniquingKeysWith: { _, last in last })
    }

    /// Replaces the cache with `results` (crashes and timeouts left out);
    /// failing to write only costs a rescan next time.
    package func save(_ results: [Key: PluginScanResult]) {
        let kept = results.filter { $0.value.status == .ok || $0.value.status == .rejected }
        let stored = Stored(
            mattebox: MatteboxVersion.current, hostABI: hostABI,
            entries: kept.sorted { $0.key.path < $1.key.path }.map { Entry(key: $0.key, result: $0.value) })
        do {
            try AtomicFile.write(try JSONEncoder().encode(stored), to: file)
        } catch {
            Log.emit(.debug, "plugin registry cache not written: \(error)")
        }
    }
}
