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
        if let movie = motionPhotoMovie, let offset = offset(of: movie, in: url),
            let summary = try? MovieInspector.inspect(Array(movie), name: "\(url.path) (Motion Photo movie)")
        {
            let timestamp = xmp.flatMap(MotionPhotoXMP.presentationMicroseconds)
            report.motionPhoto = EmbeddedMovie(offset: offset, length: movie.count, presentationTimestampUs: timestamp, movie: summary)
        }
        return report
    }

    /// Where `movie` starts in the file: at the end, where cameras and
    /// Mattebox put it (one read of its first bytes), else found by reading
    /// the file in chunks, as a tool that rewrote the file may have moved it.
    /// The file is never read whole.
    package static func offset(of movie: Data, in url: URL) -> Int? {
        guard !movie.isEmpty, let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size >= UInt64(movie.count) else { return nil }
        let probe = movie.prefix(64)
        let atEnd = size - UInt64(movie.count)
        if (try? handle.seek(toOffset: atEnd)) != nil, (try? handle.read(upToCount: probe.count)) == probe { return Int(atEnd) }
        // Chunks overlap by the probe's length, so a probe across a boundary is found.
        let chunk = 1 << 20
        var start: UInt64 = 0
        while start < size, (try? handle.seek(toOffset: start)) != nil, let bytes = try? handle.read(upToCount: chunk + probe.count) {
            if let found = bytes.range(of: probe) { return Int(start) + (found.lowerBound - bytes.startIndex) }
            if bytes.count < chunk + probe.count { return nil }
            start += UInt64(chunk)
        }
        return nil
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
