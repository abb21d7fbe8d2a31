import Foundation
import MatteboxCapture
import MatteboxCore
import MatteboxRuntime
import Synchronization

/// The durable half of deferred processing: a record, in the output folder,
/// of each photo whose proxy was written and whose final was not, so a kill
/// or crash between the two loses nothing: the next `serve` (or `capture
/// --resume-pending`) finishes them from their proxies. JSON lines in
/// `.mattebox-pending.jsonl`: a *pending* line appended before the proxy is
/// written (with what the final needs that the proxy file cannot say), a
/// *done* line after the final is in place; the file is compacted when read.
package final class PendingCaptures: Sendable {
    /// What finishing a photo needs besides its proxy.
    package struct Entry: Codable, Sendable, Equatable {
        /// The proxy's file name in the output folder.
        package var proxy: String
        package var context: CaptureContext
        package var skippedRoles: [String]
        package var skipReason: String
        package var cameraPath: String
        package var width: Int
        package var height: Int
    }

    private struct Done: Codable { var done: String }

    package static let fileName = ".mattebox-pending.jsonl"
    package let folder: URL
    private let file: JSONLinesFile
    /// Proxies pending now, by file name, in the order they were written.
    private let pending = Mutex<[(name: String, entry: Entry)]>([])

    /// Reads the record in `folder`: what an earlier run left pending (proxies
    /// that are gone are dropped), and compacts the file to just those.
    package init(folder: URL) {
        self.folder = folder
        file = JSONLinesFile(folder.appendingPathComponent(Self.fileName))
        var open: [(name: String, entry: Entry)] = []
        for line in file.lines() {
            if let entry = try? JSONDecoder().decode(Entry.self, from: line), Self.isPlainName(entry.proxy) {
                open.removeAll { $0.name == entry.proxy }
                open.append((entry.proxy, entry))
            } else if let done = try? JSONDecoder().decode(Done.self, from: line) {
                open.removeAll { $0.name == done.done }
            }
        }
        let fileManager = FileManager.default
        let gone = open.filter { !fileManager.fileExists(atPath: folder.appendingPathComponent($0.name).path) }
        for lost in gone {
            Log.emit(.warning, "\(folder.path): \(lost.name) was pending, but its proxy was never written (the run stopped first)")
        }
        open.removeAll { item in gone.contains { $0.name == item.name } }
        pending.withLock { $0 = open }
        do {
            try file.rewrite(open.compactMap { try? JSONEncoder().encode($0.entry) })
        } catch {
            Log.emit(.warning, "\(error)")
        }
    }

    /// A file name in the folder, never a path out of it (a damaged or hostile line names nothing else).
    private static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("/") && name != "." && name != ".."
    }

    /// The proxies pending, oldest first.
    package var proxies: [URL] { pending.withLock { $0.map { folder.appendingPathComponent($0.name) } } }

    /// File names pending now, for a library to show as processing.
    package var names: Set<String> { pending.withLock { Set($0.map(\.name)) } }

    package func entry(for proxy: URL) -> Entry? {
        pending.withLock { $0.first { $0.name == proxy.lastPathComponent }?.entry }
    }

    /// Records a proxy about to be written (flushed before it is).
    package func add(_ entry: Entry) throws {
        let line = try JSONEncoder().encode(entry)
        try pending.withLock { open in
            try file.append(line)
            open.append((entry.proxy, entry))
        }
    }

    /// Records that the proxy's final is in place (or that it will not be made);
    /// the record is removed once nothing is pending.
    package func finish(_ proxy: URL) {
        let name = proxy.lastPathComponent
        pending.withLock { open in
            open.removeAll { $0.name == name }
            do {
                if open.isEmpty { try file.rewrite([]) } else { try file.append(try JSONEncoder().encode(Done(done: name))) }
            } catch {
                Log.emit(.warning, "\(error)")
            }
        }
    }
}
