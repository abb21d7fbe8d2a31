import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxImageIO
import MatteboxMovie
import MatteboxRuntime

/// A HEIC Motion Photo made from a HEIC still the capture just wrote: the
/// still is read and written again with its coded images copied as they are
/// (nothing is encoded twice), the Motion Photo XMP added and the MP4 in an
/// `mpvd` box after it, as `<name>.MP.heic`; the plain still is then removed.
package enum HEICMotionPhoto {
    package static func make(
        still: URL, frames: [MovieFrame], stillTimestamp: UInt64, format: MovieFormat, settings: MovieSettings
    ) throws -> URL {
        let destination = try MotionPhoto.destination(for: still, fileExtension: "heic")
        let movie = try MotionPhoto.encode(frames: frames, stillTimestamp: stillTimestamp, format: format, settings: settings, beside: still)
        var photo = try ImageDecoder.decodePhoto(at: still)
        photo.metadata.xmp = MotionPhoto.xmp(
            adding: movie, to: photo.metadata.xmp, primaryMime: "image/heic", padding: MotionPhotoVideoBox.headerLength)
        photo.metadata.motionPhotoMovie = Data(movie.bytes)
        var notes: [String: String] = [:]
        let data = try ImageEncoder.encode(photo, as: .heic, quality: HEIFWriteOptions.defaultQuality, heif: HEIFWriteOptions(), notes: &notes)
        guard notes.isEmpty else {
            throw MatteboxError("\(still.path): the HEIC could not be rewritten as it was (\(notes.values.joined(separator: "; "))); it is left as it is")
        }
        try AtomicFile.write(data, to: destination)
        unlink(still.path)
        return destination
    }
}
