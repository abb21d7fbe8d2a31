import Foundation
import MatteboxMetadata

/// How a JPEG holds a Google Motion Photo's movie: right after the image's
/// end, located by the XMP (`MotionPhotoXMP`) by its length from the end of
/// the file. (A HEIC holds it in an `mpvd` box, `MotionPhotoVideoBox`.) A JPEG
/// written from such a photo gets the same movie again, with the directory
/// brought up to date by `ImageEncoder`, so the Motion Photo is rebuilt rather
/// than left with an XMP pointing at nothing.
package enum MotionPhotoTrailer {
    /// Where the movie lies in `jpeg`, when the XMP says it is a Motion Photo and an MP4/MOV is there.
    package static func range(in jpeg: [UInt8], xmp: Data?) -> Range<Int>? {
        guard let xmp, let range = claimedRange(fileSize: jpeg.count, xmp: xmp),
            isMovieStart(jpeg[range.lowerBound..<(range.lowerBound + 8)])
        else { return nil }
        return range
    }

    /// The file's last bytes the XMP says are the movie, before anyone looks at them.
    package static func claimedRange(fileSize size: Int, xmp: Data) -> Range<Int>? {
        guard let length = MotionPhotoXMP.movieLength(xmp), length >= 16, length < size - 4 else { return nil }
        return (size - length)..<size
    }

    /// Whether a movie's first 8 bytes are there: a box header whose type is `ftyp`.
    package static func isMovieStart(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.count >= 8 && bytes.dropFirst(4).prefix(4).elementsEqual("ftyp".utf8)
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
        guard let xmp, MotionPhotoXMP.movieLength(xmp) == movie.count else {
            notes["motionPhoto"] = "the Motion Photo's movie (\(movie.count) bytes) not kept: a JPEG's movie is found "
                + "through its XMP, and this photo's XMP does not locate it (write HEIC to keep it)"
            return jpeg
        }
        return jpeg + movie
    }
}
