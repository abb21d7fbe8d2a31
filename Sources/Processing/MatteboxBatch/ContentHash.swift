import Foundation
import MatteboxCore
import MatteboxPipeline
import MatteboxRuntime

extension ContentHash {
    /// What `--resume` compares for a photo: its file's digest, or, when it
    /// has sidecars, a digest over the photo's and each sidecar's, so changing
    /// a depth map beside a photo redoes the photo.
    package static func sha256(photoAt url: URL, sidecars: [ImageRole: URL]) throws -> String {
        let photo = try sha256(fileAt: url)
        guard !sidecars.isEmpty else { return photo }
        var lines = [photo]
        for (role, sidecar) in sidecars.sorted(by: { $0.key < $1.key }) {
            lines.append("\(role.rawValue) \(try sha256(fileAt: sidecar))")
        }
        return sha256(Data(lines.joined(separator: "\n").utf8))
    }
}
