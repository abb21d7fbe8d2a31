import Foundation
import MatteboxISOBMFF
import MatteboxRuntime

/// A movie file's top-level boxes with the media data left on disk: every box
/// is read as it is except `mdat` (and `free`/`skip`), which become empty
/// boxes. A movie's summary comes only from its other boxes (`moov`, `moof`),
/// so a recording of any length is inspected in a few hundred KiB, not read whole.
enum MovieSkeleton {
    /// More than this in boxes other than media data is not a movie's metadata.
    static let metadataLimit = 256 << 20
    static let mediaData: Set<String> = ["mdat", "free", "skip"]

    static func read(_ url: URL) throws -> [UInt8] {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch { throw MatteboxError("\(url.path): cannot open: \(error.localizedDescription)") }
        defer { try? handle.close() }
        let size = Int(try handle.seekToEnd())
        var skeleton: [UInt8] = []
        var offset = 0
        while size - offset >= 8 {
            try handle.seek(toOffset: UInt64(offset))
            let head = [UInt8](try handle.read(upToCount: 16) ?? Data())
            var reader = ByteReader(head)
            let size32 = try reader.u32("a box size")
            let type = try reader.fourCC("a box type")
            let length: Int
            switch size32 {
            case 0: length = size - offset
            case 1: length = try reader.uint(size: 8, "box '\(type)' large size")
            default: length = Int(size32)
            }
            guard length >= reader.position else {
                throw MatteboxError("\(url.path): box '\(type)' at offset \(offset) says size \(length), smaller than its header")
            }
            guard length <= size - offset else {
                throw MatteboxError(
                    "\(url.path): box '\(type)' at offset \(offset) says size \(length), but only \(size - offset) bytes are left (truncated file?)")
            }
            if mediaData.contains(type) {
                skeleton += [0, 0, 0, 8] + Array(type.utf8)
            } else {
                guard skeleton.count + length <= metadataLimit else {
                    throw MatteboxError("\(url.path): box '\(type)' at offset \(offset) holds \(length) bytes; movie metadata over \(metadataLimit >> 20) MiB is not read")
                }
                try handle.seek(toOffset: UInt64(offset))
                skeleton += [UInt8](try handle.read(upToCount: length) ?? Data())
            }
            offset += length
        }
        return skeleton
    }
}

extension MovieInspector {
    /// The summary of the movie file at `url`, read from its boxes without its media data.
    public static func inspect(at url: URL) throws -> MovieSummary {
        try inspect(try MovieSkeleton.read(url), name: url.path)
    }
}
