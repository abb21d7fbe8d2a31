import Foundation
import MatteboxPipeline

/// `--shard K/N`: a stable 1/N of a batch's photos, chosen by a hash of each
/// photo's output path, so N machines (a Kubernetes Indexed Job, a Slurm job
/// array) split one archive with no coordination. K counts from 0.
package struct BatchShard: Sendable, Equatable, Codable, CustomStringConvertible {
    package var index: Int
    package var count: Int

    package init(index: Int, count: Int) {
        self.index = index
        self.count = count
    }

    /// K and N, as the output folder's manifest names its file by them.
    package var position: (index: Int, count: Int) { (index, count) }

    /// Parses `K/N` with 0 <= K < N.
    package init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1,
            (0..<count).contains(index)
        else { return nil }
        self.init(index: index, count: count)
    }

    package var description: String { "\(index)/\(count)" }

    package func includes(_ input: BatchInput) -> Bool {
        Int(Self.fnv1a(input.stem) % UInt64(count)) == index
    }

    /// FNV-1a, 64-bit: the same on every machine and Swift version (unlike `hashValue`).
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
