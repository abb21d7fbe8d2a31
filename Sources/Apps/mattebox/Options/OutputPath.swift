import ArgumentParser
import Foundation
import MatteboxPipeline
import MatteboxRuntime

/// Where a single-file command (`export`, `inspect --sheet`) writes, checked
/// before any work: `-` is standard output; a folder (existing, or a path
/// ending in `/`) gets `defaultName` inside it; the extension must be one the
/// command writes; the folder must exist (it is never made silently); the
/// file must not be an input, and an existing file is replaced only when
/// Mattebox wrote it and it is unchanged since (the folder's manifest says so,
/// as for `process`), or with `--overwrite`.
enum OutputPath {
    enum Target {
        case standardOutput
        /// The file and the manifest of its folder, which records the write.
        case file(URL, ResumeManifest)
    }

    static func resolve(
        _ path: String, defaultName: String, extensions: [String], what: String, inputs: [URL], overwrite: Bool
    ) throws -> Target {
        if path == "-" { return .standardOutput }
        var url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        if path.hasSuffix("/") || (FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue) {
            url = url.appendingPathComponent(defaultName)
        }
        guard extensions.contains(url.pathExtension.lowercased()) else {
            let named = url.pathExtension.isEmpty ? "no extension" : ".\(url.pathExtension)"
            throw ValidationError(
                "\(url.path): \(what) is written as .\(extensions[0]) (or \(extensions.dropFirst().map { "." + $0 }.joined(separator: ", "))), not \(named)")
        }
        let folder = url.deletingLastPathComponent()
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw MatteboxError("the folder \(folder.path) does not exist", hint: "create it first with mkdir -p")
        }
        let safety = OutputSafety(existingFiles: overwrite ? .replaceAny : .refuse, inputs: Set(inputs.compactMap(FileIdentity.init)))
        let manifest = ResumeManifest(outputDirectory: folder.standardizedFileURL, shard: nil)
        try safety.check(url, source: nil, replacing: "--overwrite", options: "or give another output name") { manifest.ownership(of: $0) }
        return .file(url, manifest)
    }

    /// Writes `data` to the target: atomically to a file, or to standard output.
    static func write(_ data: Data, to target: Target) throws {
        switch target {
        case .file(let url, let manifest):
            try manifest.recordWriting(data, at: url.standardizedFileURL)
            try AtomicFile.write(data, to: url)
        case .standardOutput: FileHandle.standardOutput.write(data)
        }
    }
}
