import Foundation
import MatteboxMetadata

/// The movie of a Google Motion Photo (Android "Motion Photo format 1.0", and
/// the older MicroVideo) and the XMP that locates it: the Container
/// directory's `MotionPhoto` item by its `Item:Length` from the end of the
/// file, or `GCamera:MicroVideoOffset`. In a JPEG the movie follows the
/// image's end; in a HEIC it is an `mpvd` box (`MotionPhotoVideoBox`). A JPEG
/// or HEIC written from such a photo gets the same movie again, with the
/// directory brought up to date, so the Motion Photo is rebuilt rather than
/// left with an XMP pointing at nothing.
package enum MotionPhotoTrailer {
    /// Where the movie lies in `jpeg`, when the XMP says it is a Motion Photo and an MP4/MOV is there.
    package static func range(in jpeg: [UInt8], xmp: Data?) -> Range<Int>? {
        guard let xmp, let length = movieLength(xmp), length >= 16, length < jpeg.count - 4 else { return nil }
        let start = jpeg.count - length
        guard Array(jpeg[(start + 4)..<(start + 8)]) == Array("ftyp".utf8) else { return nil }
        return start..<jpeg.count
    }

    /// The movie's length from the end of the file, as the XMP gives it (nil when it is not readable XMP).
    package static func movieLength(_ xmp: Data) -> Int? {
        guard let packet = try? XMPPacket(xmp) else { return nil }
        if packet.value(.motionPhoto) == "1" {
            if let item = packet.directory.first(where: { $0["Semantic"] == "MotionPhoto" }) { return item["Length"].flatMap { Int($0) } }
        }
        if packet.value(.microVideo) == "1" { return packet.value(.microVideoOffset).flatMap { Int($0) } }
        return nil
    }

    /// `jpeg` without the movie at its end.
    static func removing(_ movie: Data?, from jpeg: [UInt8]) -> [UInt8] {
        guard let movie, jpeg.count > movie.count, jpeg.suffix(movie.count).elementsEqual(movie) else { return jpeg }
        return Array(jpeg.dropLast(movie.count))
    }

    /// `jpeg` with the movie appended, when the XMP it carries points at it
    /// (a JPEG's movie is found only through its XMP); else a note.
    static func appending(_ movie: Data?, to jpeg: Data, xmp: Data?, notes: inout [String: String]) -> Data {
        guard let movie else { return jpeg }
        guard let xmp, movieLength(xmp) == movie.count else {
            notes["motionPhoto"] = "the Motion Photo's movie (\(movie.count) bytes) not kept: a JPEG's movie is found "
                + "through its XMP, and this photo's XMP does not locate it (write HEIC to keep it)"
            return jpeg
        }
        return jpeg + movie
    }

    /// The XMP with its Container directory describing the file about to be
    /// written: the primary item's type and padding (a JPEG's movie follows
    /// it at once, a HEIC's after the `mpvd` header) and the movie's length.
    /// XMP without a directory (MicroVideo, or none) is returned as it is.
    package static func describing(_ xmp: Data, primaryMime: String, padding: Int, movieLength: Int) -> Data {
        guard var packet = try? XMPPacket(xmp), packet.value(.motionPhoto) == "1" else { return xmp }
        packet.updateDirectoryItem(semantic: "Primary", with: ["Mime": primaryMime, "Padding": String(padding)])
        packet.updateDirectoryItem(semantic: "MotionPhoto", with: ["Length": String(movieLength)])
        return packet.data
    }

    /// The XMP with `MotionPhoto` (and `MicroVideo`) set to 0, which the format
    /// defines as "not a Motion Photo": for outputs that do not carry the movie.
    static func notAMotionPhoto(_ xmp: Data) -> Data {
        guard var packet = try? XMPPacket(xmp) else { return xmp }
        var changed = false
        for name in [XMPName.motionPhoto, .microVideo] where packet.value(name) == "1" {
            packet.replace(name, with: "0")
            changed = true
        }
        return changed ? packet.data : xmp
    }
}
