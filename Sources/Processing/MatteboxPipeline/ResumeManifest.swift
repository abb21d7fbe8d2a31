import Foundation
import MatteboxCore
import MatteboxRuntime
import Synchronization

/// The record `--resume` and the output safety rules trust, in JSON lines in
/// the output folder. Two kinds of line:
/// - a *written* line for every file, appended (and flushed) before the file is
///   renamed into place: its path, size and SHA-256. A file is Mattebox's only
///   while its content is one Mattebox wrote there; once the user changes it,
///   it is theirs.
/// - an *entry* per finished photo, appended after its outputs are in place:
///   which input content and which pipeline made which outputs.
/// - a *withdrawn* line when a file recorded as written could not be put in
///   place (a full disk): that version was never there.
/// A killed run leaves either a complete line or none; a torn last line is
/// ignored. Each shard writes its own file, so shards sharing an output folder
/// never write to the same file.
package final class ResumeManifest: Sendable {
    package struct Entry: Codable, Sendable, Equatable {
        package var stem: String
        package var inputSHA256: String
        package var pipelineSHA256: String
        /// Paths relative to the output folder.
        package var outputs: [String]

        package init(stem: String, inputSHA256: String, pipelineSHA256: String, outputs: [String]) {
            self.stem = stem
            self.inputSHA256 = inputSHA256
            self.pipelineSHA256 = pipelineSHA256
            self.outputs = outputs
        }
    }

    /// A file Mattebox put in the output folder, as it was when written.
    package struct WrittenFile: Codable, Sendable, Equatable {
        /// The path relative to the output folder.
        package var written: String
        package var size: Int
        package var sha256: String
    }

    /// A written line taken back: the file with that content never reached the folder.
    struct WithdrawnFile: Codable, Sendable, Equatable {
        var withdrawn: String
        var sha256: String
    }

    /// Whose an existing file in the output folder is.
    package enum Ownership: Sendable, Equatable {
        /// Mattebox wrote it, and it still holds what was written.
        case mattebox
        /// Mattebox wrote it, and it was changed since: it is the user's now.
        case changedSinceWritten
        /// The manifest does not list it: someone else's file.
        case unlisted
    }

    package static let filePrefix = ".mattebox-manifest"
    private let outputDirectory: URL
    /// The output folder the manifest describes; entries name outputs relative to it.
    package var outputFolder: URL { outputDirectory }
    private let lines: JSONLinesFile
    /// Entries by stem; appends to the file happen under the same lock.
    private let entries = Mutex<[String: Entry]>([:])
    /// What each written file held, by relative path: every version Mattebox wrote there.
    private let writtenFiles = Mutex<[String: [WrittenFile]]>([:])

    /// Reads every manifest in `outputDirectory` (all shards' files).
    package init(outputDirectory: URL, shard: (index: Int, count: Int)?) {
        self.outputDirectory = outputDirectory
        let name = shard.map { "\(Self.filePrefix)-shard-\($0.index)-of-\($0.count).jsonl" } ?? "\(Self.filePrefix).jsonl"
        lines = JSONLinesFile(outputDirectory.appendingPathComponent(name))
        let names = (try? FileManager.default.contentsOfDirectory(atPath: outputDirectory.path)) ?? []
        for name in names.sorted() where name.hasPrefix(Self.filePrefix) && name.hasSuffix(".jsonl") {
            guard let text = try? String(contentsOf: outputDirectory.appendingPathComponent(name), encoding: .utf8)
            else { continue }
            for line in text.split(separator: "\n") {
                if let written = try? JSONDecoder().decode(WrittenFile.self, from: Data(line.utf8)) {
                    writtenFiles.withLock { $0[written.written, default: []].append(written) }
                } else if let withdrawn = try? JSONDecoder().decode(WithdrawnFile.self, from: Data(line.utf8)) {
                    writtenFiles.withLock { Self.forget(withdrawn, in: &$0) }
                } else if let entry = try? JSONDecoder().decode(Entry.self, from: Data(line.utf8)) {
                    entries.withLock { $0[entry.stem] = entry }
                }
            }
        }
    }

    /// The entry that lets `--resume` skip the input with this stem: same pipeline, same input
    /// content, every output there. The input is hashed (`hash`) only when an
    /// entry for the same pipeline exists, so unfinished photos cost no read.
    package func completedEntry(stem: String, pipelineSHA256: String, hash: () throws -> String) -> Entry? {
        guard let entry = entries.withLock({ $0[stem] }), entry.pipelineSHA256 == pipelineSHA256,
            !entry.outputs.isEmpty, entry.outputs.allSatisfy(Self.staysInside), (try? hash()) == entry.inputSHA256
        else { return nil }
        let complete = entry.outputs.allSatisfy { relative in
            let attributes = try? FileManager.default.attributesOfItem(
                atPath: outputDirectory.appendingPathComponent(relative).path)
            let size = (attributes?[.size] as? NSNumber)?.intValue ?? 0
            // A file cut short or replaced since it was written is not done (sizes are cheap to compare).
            let sizes = writtenFiles.withLock { $0[relative]?.map(\.size) }
            return size > 0 && (sizes.map { $0.contains(size) } ?? true)
        }
        return complete ? entry : nil
    }

    /// Whether a path from the manifest names a file inside the output folder:
    /// relative, with no `..` (a corrupted or hostile line must not make a file
    /// elsewhere count as this folder's output).
    static func staysInside(_ relative: String) -> Bool {
        !relative.isEmpty && !relative.hasPrefix("/") && !relative.split(separator: "/").contains("..")
    }

    /// Whose the file at `url` is: Mattebox's while its content is one
    /// Mattebox wrote there (hashed only when the manifest has a record of it);
    /// files listed by older manifests, which recorded names only, count as Mattebox's.
    package func ownership(of url: URL) -> Ownership {
        guard let relative = relativePath(url) else { return .unlisted }
        if let versions = writtenFiles.withLock({ $0[relative] }) {
            let size = ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue
            guard let size, versions.contains(where: { $0.size == size }),
                let digest = try? ContentHash.sha256(fileAt: url), versions.contains(where: { $0.sha256 == digest })
            else { return .changedSinceWritten }
            return .mattebox
        }
        let listed = entries.withLock { $0.values.contains { $0.outputs.contains(relative) } }
        return listed ? .mattebox : .unlisted
    }

    /// Whether Mattebox wrote a file at `url` (whatever it holds now): an
    /// earlier run's output, which a run over the same folder does not take as an input.
    package func lists(_ url: URL) -> Bool {
        guard let relative = relativePath(url) else { return false }
        if writtenFiles.withLock({ $0[relative] != nil }) { return true }
        return entries.withLock { $0.values.contains { $0.outputs.contains(relative) } }
    }

    /// Records that `data` is about to be written at `url` (before the file
    /// is renamed into place, so a file Mattebox put there is always listed).
    package func recordWriting(_ data: Data, at url: URL) throws {
        guard let relative = relativePath(url) else { return }
        let written = WrittenFile(written: relative, size: data.count, sha256: ContentHash.sha256(data))
        try append(try JSONEncoder().encode(written))
        writtenFiles.withLock { $0[relative, default: []].append(written) }
    }

    /// Takes back the record of `data` at `url` when the file could not be put in place. Best
    /// effort: on a disk too full for this line too, the record stays (and matches no file there).
    package func withdrawWriting(_ data: Data, at url: URL) {
        guard let relative = relativePath(url) else { return }
        let withdrawn = WithdrawnFile(withdrawn: relative, sha256: ContentHash.sha256(data))
        writtenFiles.withLock { Self.forget(withdrawn, in: &$0) }
        if let json = try? JSONEncoder().encode(withdrawn) { try? append(json) }
    }

    private static func forget(_ withdrawn: WithdrawnFile, in files: inout [String: [WrittenFile]]) {
        guard var versions = files[withdrawn.withdrawn], let index = versions.lastIndex(where: { $0.sha256 == withdrawn.sha256 }) else { return }
        versions.remove(at: index)
        files[withdrawn.withdrawn] = versions.isEmpty ? nil : versions
    }

    private func relativePath(_ url: URL) -> String? {
        let root = outputDirectory.path.hasSuffix("/") ? outputDirectory.path : outputDirectory.path + "/"
        let path = url.standardizedFileURL.path
        guard path.hasPrefix(root) else { return nil }
        return String(path.dropFirst(root.count))
    }

    /// Appends an entry and flushes it to disk.
    package func record(_ entry: Entry) throws {
        try append(try JSONEncoder().encode(entry))
        entries.withLock { $0[entry.stem] = entry }
    }

    /// One line, appended and flushed (`JSONLinesFile`).
    private func append(_ json: Data) throws { try lines.append(json) }
}
