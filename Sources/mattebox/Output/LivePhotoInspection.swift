import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxMetadata
import MatteboxMovie
import MatteboxRuntime

/// A still's Live Photo pairing as `inspect` shows it: Apple's (a content
/// identifier in the still's maker note, a movie beside it with the same
/// identifier) and Google's (a Motion Photo's movie inside the file, where its
/// XMP says).
struct LivePhotoInspection: Encodable {
    struct PairedMovie: Encodable {
        var path: String
        var identifierMatches: Bool
        var movie: MovieSummary
    }

    struct EmbeddedMovie: Encodable {
        var offset: Int
        var length: Int
        var presentationTimestampUs: Int64?
        var movie: MovieSummary
    }

    var contentIdentifier: String?
    var pairedMovie: PairedMovie?
    var motionPhoto: EmbeddedMovie?

    var isEmpty: Bool { contentIdentifier == nil && motionPhoto == nil }

    /// The pairing of the still at `url`, given what its EXIF says, and the
    /// Motion Photo's movie the file carries with the XMP that locates it.
    static func inspect(still url: URL, contentIdentifier: String?, motionPhotoMovie: Data? = nil, xmp: Data? = nil) -> LivePhotoInspection {
        var report = LivePhotoInspection(contentIdentifier: contentIdentifier)
        if let contentIdentifier, let movie = sibling(of: url) {
            if let summary = try? MovieInspector.inspect(at: movie) {
                report.pairedMovie = PairedMovie(
                    path: movie.path, identifierMatches: summary.contentIdentifier == contentIdentifier, movie: summary)
            }
        }
        // The movie ends a file Mattebox or a camera wrote; a tool that rewrote the file may have moved it.
        if let movie = motionPhotoMovie, let file = try? Data(contentsOf: url),
            let found = file.range(of: movie, options: .backwards),
            let summary = try? MovieInspector.inspect(Array(movie), name: "\(url.path) (Motion Photo movie)")
        {
            let timestamp = xmp.flatMap { try? XMPPacket($0).value(.motionPhotoPresentationTimestampUs) }.flatMap { Int64($0) }
            report.motionPhoto = EmbeddedMovie(offset: found.lowerBound, length: movie.count, presentationTimestampUs: timestamp, movie: summary)
        }
        return report
    }

    /// The movie beside a still with its name (IMG_0001.HEIC and IMG_0001.MOV, as iPhones write them).
    static func sibling(of still: URL) -> URL? {
        let folder = still.deletingLastPathComponent()
        return LivePhotoMovies(folder: folder).movie(for: still.lastPathComponent).map { folder.appendingPathComponent($0) }
    }

    var lines: [String] {
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

/// A movie as `inspect` shows it.
enum MovieInspectionText {
    static func render(_ summary: MovieSummary, path: String, bytes: Int) -> String {
        var lines = ["\(path) (\(bytes) bytes; movie)"]
        lines.append(String(format: "duration: %.3f s", summary.duration) + (summary.fragmented ? " (fragmented)" : ""))
        if let cut = summary.cutOffAt {
            lines.append("cut off: the file ends inside a box at byte \(cut) (a recording that was not finished?); frames and length are those of the whole fragments before it")
        }
        if let coding = summary.videoCoding {
            lines.append("video: \(coding), \(summary.videoFrames ?? 0) frames")
        }
        if let identifier = summary.contentIdentifier { lines.append("Live Photo: content identifier \(identifier)") }
        if let still = summary.stillImageTime { lines.append(String(format: "still image time: %.3f s", still)) }
        return lines.joined(separator: "\n")
    }
}
