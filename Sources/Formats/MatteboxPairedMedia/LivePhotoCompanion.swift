import Foundation
import MatteboxCore
import MatteboxMovie
import MatteboxRuntime

/// An Apple Live Photo's movie, carried with its still: the movie beside the
/// photo with its name (IMG_0001.MOV beside IMG_0001.HEIC, as iPhones store
/// them) whose QuickTime content identifier is the one in the still's maker
/// note. A rewritten still keeps its EXIF and so the identifier; copied byte
/// for byte beside it, with its name, the movie still pairs with it.
package enum LivePhotoCompanion {
    /// True when `movie` is the Live Photo movie of `photo`; a note when a movie
    /// with the photo's name is not carried although the photo is a Live Photo.
    package static func pairs(_ movie: URL, with photo: Photo) -> (pairs: Bool, note: String?) {
        guard let identifier = photo.metadata.exif?.appleContentIdentifier else { return (false, nil) }
        let notCopied = "\(movie.lastPathComponent) beside it was not copied"
        let summary: MovieSummary
        do {
            try InputFile.checkReadable(movie)
            // What `inspect` refuses as no movie is not copied as one (a damaged first box).
            let handle = try FileHandle(forReadingFrom: movie)
            defer { try? handle.close() }
            let head = try handle.read(upToCount: 64) ?? Data()
            guard MovieInspector.looksLikeMovie(ArraySlice([UInt8](head))) else {
                return (false, "\(notCopied): it does not start as a QuickTime or MP4 movie does (damaged?)")
            }
            summary = try MovieInspector.inspect(at: movie)
        } catch {
            return (false, "\(notCopied): \(error)")
        }
        guard summary.contentIdentifier == identifier else {
            return (false, "\(notCopied): its content identifier (\(summary.contentIdentifier ?? "none")) is not the still's (\(identifier))")
        }
        return (true, nil)
    }
}
