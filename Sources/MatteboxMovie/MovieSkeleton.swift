import Foundation
import MatteboxISOBMFF
import MatteboxRuntime

/// A movie file's top-level boxes with the media data left on disk: every box
/// is read as it is except `mdat` (and `free`/`skip`), which become empty
/// boxes. A movie's summary comes only from its other boxes (`moov`, `moof`),
/// so a recording of any length is inspected in a few hundred KiB, not read whole.
/// A file that ends inside a box (a recording whose writer was killed) keeps the
/// boxes before the cut, less the fragment the cut box belonged to.
struct MovieSkeleton {
    var bytes: [UInt8] = []
    /// Where the file ends inside a box, and what that box claimed.
    var cut: (offset: Int, message: String)?

    /// More than this in boxes other than media data is not a movie's metadata.
    static let metadataLimit = 256 << 20
    static let mediaData: Set<String> = ["mdat", "free", "skip"]

    static func read(_ url: URL) throws -> MovieSkeleton {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch { throw MatteboxError("\(url.path): cannot open: \(error.localizedDescription)") }
        defer { try? handle.close() }
        let size = Int(try handle.seekToEnd())
        var skeleton = MovieSkeleton()
        var offset = 0
        var lastMovieFragment: Int?
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
                skeleton.cut = (offset, "\(url.path): box '\(type)' at offset \(offset) says size \(length), but only \(size - offset) bytes are left (truncated file?)")
                // The fragment whose media the cut box held is not whole: its 'moof' goes too.
                if type == "mdat", let fragment = lastMovieFragment { skeleton.bytes.removeSubrange(fragment...) }
                break
            }
            lastMovieFragment = type == "moof" ? skeleton.bytes.count : nil
            if mediaData.contains(type) {
                skeleton.bytes += [0, 0, 0, 8] + Array(type.utf8)
            } else {
                guard skeleton.bytes.count + length <= metadataLimit else {
                    throw MatteboxError("\(url.path): box '\(type)' at offset \(offset) holds \(length) bytes; movie metadata over \(metadataLimit >> 20) MiB is not read")
                }
                try handle.seek(toOffset: UInt64(offset))
                skeleton.bytes += [UInt8](try handle.read(upToCount: length) ?? Data())
            }
            offset += length
        }
        return skeleton
    }
}

extension MovieInspector {
    /// The summary of the movie file at `url`, read from its boxes without its media data.
    /// A fragmented movie cut off inside a box (a killed recording) is summarised up to its
    /// last whole fragment, as players play it, and says where it was cut; any other cut
    /// movie is an error, since its `moov` may describe frames that are not there.
    public static func inspect(at url: URL) throws -> MovieSummary {
        let skeleton = try MovieSkeleton.read(url)
        guard let cut = skeleton.cut else { return try inspect(skeleton.bytes, name: url.path) }
        guard var summary = try? inspect(skeleton.bytes, name: url.path), summary.fragmented else { throw MatteboxError(cut.message) }
        summary.cutOffAt = cut.offset
        return summary
    }
}
