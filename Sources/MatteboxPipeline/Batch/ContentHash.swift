import Crypto
import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxRuntime

/// SHA-256 digests as lowercase hex: what `--resume` compares to tell whether an
/// input's content or the pipeline changed since its output was written.
public enum ContentHash {
    public static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    /// Streams the file in 1 MiB pieces, so large inputs are not held in memory.
    public static func sha256(fileAt url: URL) throws -> String {
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

    /// What `--resume` compares for a photo: its file's digest, or, when it
    /// has sidecars (and they are used), a digest over the photo's and each
    /// sidecar's, so changing a depth map beside a photo redoes the photo.
    public static func sha256(photoAt url: URL, sidecars: Bool) throws -> String {
        let photo = try sha256(fileAt: url)
        let found = sidecars ? Sidecars.find(for: url) : [:]
        guard !found.isEmpty else { return photo }
        var lines = [photo]
        for (role, sidecar) in found.sorted(by: { $0.key < $1.key }) {
            lines.append("\(role.rawValue) \(try sha256(fileAt: sidecar))")
        }
        return sha256(Data(lines.joined(separator: "\n").utf8))
    }
}
