import Foundation
import MatteboxHEIF
import MatteboxISOBMFF
import MatteboxImageIO
import MatteboxMetadata

/// Where a Motion Photo's movie lies in its file, found from the file's
/// structure alone, so a viewer streams the movie from disk without decoding
/// the photo or reading the file whole: a JPEG's movie ends the file, its
/// length given by the XMP near the file's start; a HEIC's is the payload of
/// its top-level `mpvd` box, less a camera maker's trailer after the movie's
/// own boxes. The rules are the readers' (`MotionPhotoTrailer`,
/// `MotionPhotoVideoBox`), applied to box headers read from disk.
package enum EmbeddedMovieLocation {
    /// The JPEG's segments before the image data are read from this much of its start.
    static let jpegHeadLimit = 1 << 20

    /// The movie's bytes in the file at `url`; nil when it holds none (or cannot be read).
    package static func range(in url: URL) -> Range<Int>? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let size = try? Int(handle.seekToEnd()), size > 16, (try? handle.seek(toOffset: 0)) != nil,
            let start = try? handle.read(upToCount: 12), start.count == 12
        else { return nil }
        if start.starts(with: [0xFF, 0xD8]) { return jpegMovie(handle, size: size) }
        if Array(start[4..<8]) == Array("ftyp".utf8) { return heicMovie(handle, size: size) }
        return nil
    }

    private static func jpegMovie(_ handle: FileHandle, size: Int) -> Range<Int>? {
        guard (try? handle.seek(toOffset: 0)) != nil, let head = try? handle.read(upToCount: jpegHeadLimit),
            let payload = JPEGSegments.app1Payload(startingWith: JPEGSegments.xmpHeader, in: [UInt8](head)),
            let movie = MotionPhotoTrailer.claimedRange(fileSize: size, xmp: Data(payload.dropFirst(JPEGSegments.xmpHeader.count)))
        else { return nil }
        return startsWithFileType(handle, at: movie.lowerBound) ? movie : nil
    }

    private static func heicMovie(_ handle: FileHandle, size: Int) -> Range<Int>? {
        for box in topLevelBoxes(handle, in: 0..<size) where box.type == MotionPhotoVideoBox.type {
            guard box.payload.count >= 16, startsWithFileType(handle, at: box.payload.lowerBound) else { return nil }
            // The movie's own boxes; what follows them (Samsung's 'sefd') is not the movie.
            let parts = topLevelBoxes(handle, in: box.payload)
            let end = MotionPhotoVideoBox.trailerIndex(parts.map(\.type)).map { parts[$0].range.lowerBound } ?? box.payload.upperBound
            return box.payload.lowerBound..<end
        }
        return nil
    }

    /// The boxes in `range` of the file, from their headers alone; a damaged header ends the list.
    private static func topLevelBoxes(_ handle: FileHandle, in range: Range<Int>) -> [(type: String, range: Range<Int>, payload: Range<Int>)] {
        var boxes: [(type: String, range: Range<Int>, payload: Range<Int>)] = []
        var offset = range.lowerBound
        while range.upperBound - offset >= 8, (try? handle.seek(toOffset: UInt64(offset))) != nil,
            let bytes = try? handle.read(upToCount: 32)
        {
            var reader = ByteReader([UInt8](bytes))
            guard let (type, length, header) = try? Box.header(&reader, available: range.upperBound - offset),
                length >= header, length <= range.upperBound - offset
            else { break }
            boxes.append((type, offset..<(offset + length), (offset + header)..<(offset + length)))
            offset += length
        }
        return boxes
    }

    private static func startsWithFileType(_ handle: FileHandle, at offset: Int) -> Bool {
        guard (try? handle.seek(toOffset: UInt64(offset))) != nil, let bytes = try? handle.read(upToCount: 8) else { return false }
        return MotionPhotoTrailer.isMovieStart(bytes)
    }
}
