import Foundation
import MatteboxCore
import MatteboxMetadata
import MatteboxMovie
import MatteboxRuntime

/// A still's Live Photo pairing as `inspect` shows it: Apple's (a content
/// identifier in the still's maker note, a movie beside it with the same
/// identifier) and Google's (a Motion Photo's movie inside the file, where its
/// XMP says).
package struct LivePhotoInspection: Encodable, Sendable {
    package struct PairedMovie: Encodable, Sendable {
        package var path: String
        package var identifierMatches: Bool
        package var movie: MovieSummary
    }

    package struct EmbeddedMovie: Encodable, Sendable {
        package var offset: Int
        package var length: Int
        package var presentationTimestampUs: Int64?
        package var movie: MovieSummary
    }

    package var contentIdentifier: String?
    package var pairedMovie: PairedMovie?
    package var motionPhoto: EmbeddedMovie?

    package var isEmpty: Bool { contentIdentifier == nil && motionPhoto == nil }

    /// The pairing of the still at `url`, given what its EXIF says, and the
    /// Motion Photo's movie the file carries with the XMP that locates it.
    package static func inspect(still url: URL, contentIdentifier: String?, motionPhotoMovie: Data? = nil, xmp: Data? = nil) -> LivePhotoInspection {
        var report = LivePhotoInspection(contentIdentifier: contentIdentifier)
        if let contentIdentifier, let movie = sibling(of: url) {
            if let summary = try? MovieInspector.inspect(at: movie) {
                report.pairedMovie = PairedMovie(
                    path: movie.path, identifierMatches: summary.contentIdentifier == contentIdentifier, movie: summary)
            }
        }
        // Where the file holds it, found as the library finds it to stream it; the file is never read whole.
        if let movie = motionPhotoMovie, let range = EmbeddedMovieLocation.range(in: url), range.count == movie.count,
            let summary = try? MovieInspector.inspect(Array(movie), name: "\(url.path) (Motion Photo movie)")
        {
            let timestamp = xmp.flatMap(MotionPhotoXMP.presentationMicroseconds)
            report.motionPhoto = EmbeddedMovie(offset: range.lowerBound, length: movie.count, presentationTimestampUs: timestamp, movie: summary)
        }
        return report
    }

    /// The movie beside a still with its name (IMG_0001.HEIC and IMG_0001.MOV, as iPhones write them).
    package static func sibling(of still: URL) -> URL? {
        let folder = still.deletingLastPathComponent()
        return LivePhotoMovies(folder: folder).movie(for: still.lastPathComponent).map { folder.appendingPathComponent($0) }
    }

    package var lines: [String] {
        var lines: [String] = []
        if let contentIdentifier {
            lines.append("Live Photo: content identifier \(contentIdentifier) (Apple maker note)")
            if let paired = pairedMovie {
                var text = "  movie: \(paired.path), " + String(format: "%.2f s", paired.movie.duration)
                if let still = paired.movie.stillImageTime { text += String(format: ", still at %.3f s", still) }
                text += paired.identifierMatches ? ", same identifier: paired" : ", identifier \(paired.movie.contentIdentifier ?? "none"): not paired"
                lines.append(text)
            } else {
                lines.append("  movie: none beside it")
            }
        }
        if let motion = motionPhoto {
            var text = "Motion Photo: movie at offset \(motion.offset), \(motion.length) bytes, "
                + String(format: "%.2f s", motion.movie.duration) + (motion.movie.videoCoding.map { " \($0)" } ?? "")
            if let pts = motion.presentationTimestampUs { text += String(format: ", still at %.3f s", Double(pts) / 1e6) }
            lines.append(text)
        }
        return lines
    }
}
