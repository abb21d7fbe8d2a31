import Foundation

/// Writes files so that a reader (or a crash) never sees half of one: the bytes
/// go to a temporary file in the same folder, are flushed to disk, and the file
/// is renamed over the destination.
package enum AtomicFile {
    package static func write(_ data: Data, to url: URL) throws {
        let folder = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw MatteboxError("cannot create the folder \(folder.path): \(SystemError.describe(error))")
        }
        let temporary = folder.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).partial")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw MatteboxError("cannot write in \(folder.path): \(SystemError.describe(errno))")
        }
        var failure: MatteboxError?
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = MatteboxError("cannot write \(url.path): \(SystemError.describe(errno))")
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 {
            failure = MatteboxError("cannot flush \(url.path) to disk: \(SystemError.describe(errno))")
        }
        close(descriptor)
        if failure == nil, rename(temporary.path, url.path) != 0 {
            failure = MatteboxError("cannot rename into \(url.path): \(SystemError.describe(errno))")
        }
        if let failure {
            unlink(temporary.path)
            throw failure
        }
        let folderDescriptor = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            fsync(folderDescriptor)
            close(folderDescriptor)
        }
    }

    /// Removes temporary files a killed writer left behind for outputs whose
    /// names start with `stem`'s last component plus a dot (`photo.` covers
    /// `photo.heic` and `photo.depth.png`), only those of process `writer` if given.
    /// Returns how many were removed.
    @discardableResult
    package static func removeUnfinished(startingWith stem: URL, writer: pid_t? = nil) -> Int {
        let folder = stem.deletingLastPathComponent()
        let prefix = ".\(stem.lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".partial") {
            let fields = name.dropLast(".partial".count).split(separator: ".")
            guard fields.count >= 3, let pid = pid_t(fields[fields.count - 2]) else { continue }
            if let writer, pid != writer { continue }
            if unlink(folder.appendingPathComponent(name).path) == 0 { removed += 1 }
        }
        return removed
    }
}
