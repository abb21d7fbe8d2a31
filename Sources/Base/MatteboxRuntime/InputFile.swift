import Foundation

/// The checks every reader makes before touching a file, so a missing,
/// special, unreadable, empty or oversized input gets a short message naming
/// it and saying what it is, before a library gives a long one (or blocks on
/// a FIFO, or reads a device forever).
package enum InputFile {
    /// Throws unless `url` is a non-empty regular file this process may read;
    /// returns its size in bytes. Symbolic links are followed.
    @discardableResult
    package static func checkReadable(_ url: URL) throws -> Int {
        var status = stat()
        guard stat(url.path, &status) == 0 else {
            let reason = errno == ENOENT ? "No such file" : SystemError.describe(errno)
            throw MatteboxError("\(url.path): \(reason)")
        }
        let kind = status.st_mode & S_IFMT
        guard kind == S_IFREG else {
            throw MatteboxError("\(url.path): \(describe(kind)), not a photo file; only regular files are read")
        }
        guard access(url.path, R_OK) == 0 else {
            throw MatteboxError(
                "\(url.path): cannot be read: \(SystemError.describe(errno))",
                hint: "check its permissions and owner with ls -l")
        }
        guard status.st_size > 0 else {
            throw MatteboxError("\(url.path): empty file (0 bytes), not an image")
        }
        return Int(status.st_size)
    }

    /// What a file of this type is, in words.
    static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a named pipe (FIFO)"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "a special file"
        }
    }
}

/// One file's identity on this machine (device and inode), so a path that
/// names the same file by another route (a link, `..`, a bind mount) is still
/// recognised: an output must never be an input.
package struct FileIdentity: Hashable, Sendable, Codable {
    package var device: UInt64
    package var inode: UInt64

    /// The identity of the file at `url`, following links; nil when there is none.
    package init?(_ url: URL) {
        var status = stat()
        guard stat(url.path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}

/// System errors in words a person can act on, instead of Foundation's
/// `NSCocoaErrorDomain Code=…` dumps.
package enum SystemError {
    /// strerror's text, lower-cased, for an errno value.
    package static func describe(_ code: Int32) -> String {
        switch code {
        case EACCES, EPERM: return "permission denied"
        case ENOSPC: return "no space left on the device"
        case EROFS: return "the file system is read-only"
        case ENOTDIR: return "a part of the path is not a folder"
        case EISDIR: return "it is a folder"
        default: return String(cString: strerror(code)).lowercased()
        }
    }

    /// A thrown Foundation or POSIX error as a short reason ("permission denied").
    package static func describe(_ error: Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return describe(Int32(underlying.code))
        }
        if nsError.domain == NSPOSIXErrorDomain { return describe(Int32(nsError.code)) }
        switch nsError.code {
        case NSFileNoSuchFileError, NSFileReadNoSuchFileError: return "no such file or folder"
        case NSFileWriteNoPermissionError, NSFileReadNoPermissionError: return "permission denied"
        case NSFileWriteOutOfSpaceError: return "no space left on the device"
        case NSFileWriteVolumeReadOnlyError: return "the file system is read-only"
        case NSFileWriteFileExistsError: return "a file is in the way"
        default: return (error as? MatteboxError)?.description ?? nsError.localizedDescription
        }
    }
}
