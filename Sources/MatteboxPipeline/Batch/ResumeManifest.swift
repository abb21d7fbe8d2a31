import Foundation
import MatteboxCore
import MatteboxRuntime
import Synchronization

/// The record `--resume` trusts: one JSON line per finished photo in the output
/// folder, saying which input content and which pipeline made which outputs.
/// A line is appended (and flushed) only after the photo's outputs were renamed
/// into place, so a killed run leaves either a complete entry or none; a torn
/// last line is ignored. Each shard writes its own file, so shards sharing an
/// output folder never write to the same file.
public final class ResumeManifest: Sendable {
    public struct Entry: Codable, Sendable, Equatable {
        public var stem: String
        public var inputSHA256: String
        public var pipelineSHA256: String
        /// Paths relative to the output folder.
        public var outputs: [String]

        public init(stem: String, inputSHA256: String, pipelineSHA256: String, outputs: [String]) {
            self.stem = stem
            self.inputSHA256 = inputSHA256
            self.pipelineSHA256 = pipelineSHA256
            self.outputs = outputs
        }
    }

    public static let filePrefix = ".mattebox-manifest"
    private let outputDirectory: URL
    /// The output folder the manifest describes; entries name outputs relative to it.
    public var outputFolder: URL { outputDirectory }
    private let file: URL
    /// Entries by stem; appends to the file happen under the same lock.
    private let entries = Mutex<[String: Entry]>([:])

    /// Reads every manifest in `outputDirectory` (all shards' files).
    public init(outputDirectory: URL, shard: BatchShard?) {
        self.outputDirectory = outputDirectory
        let name = shard.map { "\(Self.filePrefix)-shard-\($0.index)-of-\($0.count).jsonl" } ?? "\(Self.filePrefix).jsonl"
        file = outputDirectory.appendingPathComponent(name)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: outputDirectory.path)) ?? []
        for name in names.sorted() where name.hasPrefix(Self.filePrefix) && name.hasSuffix(".jsonl") {
            guard let text = try? String(contentsOf: outputDirectory.appendingPathComponent(name), encoding: .utf8)
            else { continue }
            for line in text.split(separator: "\n") {
                if let entry = try? JSONDecoder().decode(Entry.self, from: Data(line.utf8)) {
                    entries.withLock { $0[entry.stem] = entry }
                }
            }
        }
    }

    /// The entry that lets `--resume` skip `input`: same pipeline, same input
    /// content, every output there. The input is hashed (`hash`) only when an
    /// entry for the same pipeline exists, so unfinished photos cost no read.
    public func completedEntry(for input: BatchInput, pipelineSHA256: String, hash: () throws -> String) -> Entry? {
        guard let entry = entries.withLock({ $0[input.stem] }), entry.pipelineSHA256 == pipelineSHA256,
            !entry.outputs.isEmpty, (try? hash()) == entry.inputSHA256
        else { return nil }
        let complete = entry.outputs.allSatisfy { relative in
            let attributes = try? FileManager.default.attributesOfItem(
                atPath: outputDirectory.appendingPathComponent(relative).path)
            return ((attributes?[.size] as? NSNumber)?.intValue ?? 0) > 0
        }
        return complete ? entry : nil
    }

    /// True when an entry lists `url` among its outputs: Mattebox wrote it there.
    public func records(_ url: URL) -> Bool {
        let root = outputDirectory.path.hasSuffix("/") ? outputDirectory.path : outputDirectory.path + "/"
        let path = url.standardizedFileURL.path
        guard path.hasPrefix(root) else { return false }
        let relative = String(path.dropFirst(root.count))
        return entries.withLock { $0.values.contains { $0.outputs.contains(relative) } }
    }

    /// Appends an entry and flushes it to disk.
    public func record(_ entry: Entry) throws {
        var line = try JSONEncoder().encode(entry)
        line.append(0x0A)
        try entries.withLock { entries in
            try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
            let descriptor = open(file.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw MatteboxError("cannot open \(file.path): \(String(cString: strerror(errno)))")
            }
            defer { close(descriptor) }
            let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress!, $0.count) }
            guard written == line.count, fsync(descriptor) == 0 else {
                throw MatteboxError("cannot append to \(file.path): \(String(cString: strerror(errno)))")
            }
            entries[entry.stem] = entry
        }
    }
}
