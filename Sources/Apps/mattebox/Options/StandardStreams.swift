import Foundation
import MatteboxRuntime

/// `-` as a file name, as vips, ImageMagick and exiftool allow: standard input
/// is spooled into a private temporary file (readers need to seek), and a
/// result for standard output is written to one and copied out.
enum StandardStreams {
    /// A private folder for this process, removed by `cleanUp`.
    static func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mattebox-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return url
    }

    /// The path to read for `path`: itself, or for `-` a file holding standard input.
    static func input(_ path: String, in folder: () throws -> URL) throws -> URL {
        guard path == "-" else { return URL(fileURLWithPath: path) }
        let data = FileHandle.standardInput.readDataToEndOfFile()
        guard !data.isEmpty else { throw MatteboxError("standard input is empty: nothing to read for -") }
        // A name whose extension the sniffing does not need; "stdin" shows in messages.
        let url = try folder().appendingPathComponent("stdin")
        try AtomicFile.write(data, to: url)
        return url
    }

    /// Copies a finished file to standard output.
    static func copyToStandardOutput(_ url: URL) throws {
        FileHandle.standardOutput.write(try Data(contentsOf: url))
    }

    static func cleanUp(_ folder: URL?) {
        if let folder { try? FileManager.default.removeItem(at: folder) }
    }
}
