import Crypto
import Foundation

/// SHA-256 digests as lowercase hex: what `--resume` compares to tell whether an
/// input's content or the pipeline changed since its output was written, and
/// what pins a model file to the one its registry published. (And MD5, which
/// names an extended XMP packet by its content; not for security.)
package enum ContentHash {
    /// The MD5 digest as uppercase hex, as XMP's HasExtendedXMP GUID writes it.
    package static func md5GUID(_ bytes: some Sequence<UInt8>) -> String {
        Insecure.MD5.hash(data: Array(bytes)).map { String(format: "%02X", $0) }.joined()
    }

    package static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// Streams the file in 1 MiB pieces, so large inputs are not held in memory.
    package static func sha256(fileAt url: URL) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw MatteboxError("\(url.path): cannot be opened for reading")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let piece = try handle.read(upToCount: 1 << 20), !piece.isEmpty {
            hasher.update(data: piece)
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}
