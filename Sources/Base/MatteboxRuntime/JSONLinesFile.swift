import Foundation
import Synchronization

/// An append-only file of JSON lines that a kill cannot corrupt: each line is
/// appended with one write and flushed to disk before `append` returns, a
/// line a killed writer tore is never joined to the next, and readers skip
/// what does not decode. The batch's manifest and the capture queue's record
/// of pending photos are kept this way.
package final class JSONLinesFile: Sendable {
    package let url: URL
    private let lock = Mutex(())

    package init(_ url: URL) { self.url = url }

    /// Every complete line, in order (none when the file is missing).
    package func lines() -> [Data] {
        guard let data = try? Data(contentsOf: url) else { return [] }
        return data.split(separator: 0x0A).map { Data($0) }
    }

    /// Appends one line and flushes it to disk.
    package func append(_ json: Data) throws {
        var line = json
        line.append(0x0A)
        try lock.withLock { _ in
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            let descriptor = open(url.path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw MatteboxError("cannot open \(url.path): \(SystemError.describe(errno))")
            }
            defer { close(descriptor) }
            // A run killed mid-line (on a filesystem that tears writes) left a last line without its
            // end: start on a new line, or this one would be lost with it.
            var last: UInt8 = 0x0A
            let end = lseek(descriptor, 0, SEEK_END)
            if end > 0, pread(descriptor, &last, 1, end - 1) == 1, last != 0x0A {
                line.insert(0x0A, at: line.startIndex)
            }
            let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress!, $0.count) }
            guard written == line.count, fsync(descriptor) == 0 else {
                throw MatteboxError("cannot append to \(url.path): \(SystemError.describe(errno))")
            }
        }
    }

    /// Replaces the whole file with `lines` atomically, or removes it when there are none.
    package func rewrite(_ lines: [Data]) throws {
        try lock.withLock { _ in
            if lines.isEmpty {
                if unlink(url.path) != 0, errno != ENOENT {
                    throw MatteboxError("cannot remove \(url.path): \(SystemError.describe(errno))")
                }
                return
            }
            try AtomicFile.write(lines.reduce(into: Data()) { $0.append($1); $0.append(0x0A) }, to: url)
        }
    }
}
