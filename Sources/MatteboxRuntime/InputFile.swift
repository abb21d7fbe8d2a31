import Foundation

/// The checks every reader makes before touching a file, so a missing,
/// special, empty or oversized input gets a short message naming it before
/// a library gives a long one.
public enum InputFile {
    /// Throws unless `url` is a non-empty regular file; returns its size in bytes.
    @discardableResult
    public static func checkReadable(_ url: URL) throws -> Int {
        var status = stat()
        guard stat(url.path, &status) == 0 else {
            throw MatteboxError("\(url.path): \(String(cString: strerror(errno)))")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw MatteboxError("\(url.path): not a regular file")
        }
        guard status.st_size > 0 else {
            throw MatteboxError("\(url.path): empty file (0 bytes), not an image")
        }
        return Int(status.st_size)
    }
}
