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
            var reader = ByteReader([UInt8](try handle.read(upToCount: 32) ?? Data()))
            guard let (type, length, headerLength) = try? Box.header(&reader, available: size - offset) else {
                skeleton.cutOff(at: offset, "\(url.path): the box header at offset \(offset) is cut off (truncated file?)", after: lastMovieFragment)
                break
            }
            guard length >= headerLength else {
                throw MatteboxError("\(url.path): box '\(type)' at offset \(offset) says size \(length), smaller than its header")
            }
            guard length <= size - offset else {
                skeleton.cutOff(
                    at: offset, "\(url.path): box '\(type)' at offset \(offset) says size \(length), but only \(size - offset) bytes are left (truncated file?)",
                    after: lastMovieFragment)
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
        if skeleton.cut == nil, offset < size {
            // Fewer bytes than a box header are left: the file ends inside the next box's header.
            skeleton.cutOff(at: offset, "\(url.path): the box header at offset \(offset) is cut off (truncated file?)", after: lastMovieFragment)
        } else if skeleton.cut == nil, lastMovieFragment != nil {
            // A fragment's header with no media data after it: its frames are not in the file.
            skeleton.cutOff(at: size, "\(url.path): the file ends after a 'moof' box, before its media data (truncated file?)", after: lastMovieFragment)
        }
        return skeleton
    }

    /// The file ends inside the box at `offset`. A `moof` just before it (at `fragment` in
    /// the skeleton) describes media that is not whole, so it goes too.
    private mutating func cutOff(at offset: Int, _ message: String, after fragment: Int?) {
        cut = (offset, message)
        if let fragment { bytes.removeSubrange(fragment...) }
    }
}

extension MovieInspector {
    /// The summary of the movie file at `url`, read from its boxes without its media data.
    /// A fragmented movie cut off inside a box (a killed recording) is summarised up to its
    /// last whole fragment, as players play it, and says where it was cut; any other cut
    /// movie is an error, since its `moov` may describe frames that are not there.
    package static func inspect(at url: URL) throws -> MovieSummary {
        let skeleton = try MovieSkeleton.read(url)
        guard let cut = skeleton.cut else { return try inspect(skeleton.bytes, name: url.path) }
        guard var summary = try? inspect(skeleton.bytes, name: url.path), summary.fragmented else { throw MatteboxError(cut.message) }
        summary.cutOffAt = cut.offset
        return summary
    }
}
