import Foundation
import MatteboxMetadata
import MatteboxMovie
import MatteboxRuntime

/// Google's Motion Photo (Android "Motion Photo format 1.0"): one JPEG or
/// HEIC whose XMP carries the Camera properties (`GCamera:MotionPhoto`,
/// version, the still's presentation time in the movie) and a Container
/// directory (the primary image, then the MP4, located by its length from the
/// end of the file), with the MP4 after the image: right after a JPEG's end,
/// in an `mpvd` box after a HEIC's boxes. Written as `<name>.MP.jpg` or
/// `<name>.MP.heic`, the file name pattern the format asks writers to use.
package enum MotionPhoto {
    /// The MP4 a Motion Photo carries, and the still's time in it.
    package struct Movie: Sendable {
        package var bytes: [UInt8]
        package var presentationMicroseconds: Int64
    }

    /// Makes `<still stem>.MP.jpg` from the JPEG still and the frames, and
    /// removes the plain still it replaces (a file this capture just wrote).
    package static func make(
        still: URL, frames: [MovieFrame], stillTimestamp: UInt64, format: MovieFormat, settings: MovieSettings
    ) throws -> URL {
        let jpeg = try readFile(still)
        guard jpeg.starts(with: [0xFF, 0xD8]) else {
            throw MatteboxError("\(still.path): a JPEG Motion Photo is written around a JPEG still")
        }
        let destination = try self.destination(for: still, fileExtension: "jpg")
        let movie = try encode(frames: frames, stillTimestamp: stillTimestamp, format: format, settings: settings, beside: still)
        let xmp = MotionPhotoXMP.packet(
            movieLength: movie.bytes.count, presentationMicroseconds: movie.presentationMicroseconds, primaryMime: "image/jpeg", padding: 0)
        let photo = try insertingXMP(xmp, into: jpeg, path: still.path)
        try AtomicFile.write(Data(photo + movie.bytes), to: destination)
        unlink(still.path)
        return destination
    }

    /// `<still stem>.MP.<ext>`, which must not exist yet.
    package static func destination(for still: URL, fileExtension: String) throws -> URL {
        let destination = still.deletingPathExtension().appendingPathExtension("MP.\(fileExtension)")
        guard !FileManager.default.fileExists(atPath: destination.path) else {
            throw MatteboxError("\(destination.path) already exists; a Motion Photo never replaces a file")
        }
        return destination
    }

    /// The frames as a plain (not fragmented) MP4, encoded through a hidden file beside the still.
    package static func encode(
        frames: [MovieFrame], stillTimestamp: UInt64, format: MovieFormat, settings: MovieSettings, beside still: URL
    ) throws -> Movie {
        guard let first = frames.first else { throw MatteboxError("no frames for the Motion Photo's movie") }
        let temporary = still.deletingLastPathComponent()
            .appendingPathComponent(".\(still.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).mp4").path
        defer { unlink(temporary) }
        var mp4Settings = settings
        mp4Settings.container = .mp4
        let writer = try MovieWriter(path: temporary, format: format, settings: mp4Settings, fragmented: false)
        for frame in frames { try writer.append(frame) }
        try writer.finish()
        return Movie(
            bytes: try readFile(URL(fileURLWithPath: temporary)),
            presentationMicroseconds: Int64(stillTimestamp &- first.timestamp) / 1000)
    }

    /// A still's XMP with this movie's Motion Photo properties added (`MotionPhotoXMP.adding`).
    package static func xmp(adding movie: Movie, to existing: Data?, primaryMime: String, padding: Int) -> Data {
        MotionPhotoXMP.adding(
            movieLength: movie.bytes.count, presentationMicroseconds: movie.presentationMicroseconds, to: existing,
            primaryMime: primaryMime, padding: padding)
    }

    /// The JPEG with the Motion Photo XMP: added as its own APP1 segment after
    /// the EXIF one, or, when the JPEG has XMP already, added to it as a
    /// further rdf:Description (XMP allows several), so nothing there is lost.
    static func insertingXMP(_ xmp: XMPPacket, into jpeg: [UInt8], path: String) throws -> [UInt8] {
        var packet = xmp
        if let existing = JPEGSegments.app1Payload(startingWith: JPEGSegments.xmpHeader, in: jpeg) {
            do {
                packet = try XMPPacket(Data(existing.dropFirst(JPEGSegments.xmpHeader.count)))
            } catch {
                throw MatteboxError("\(path): its XMP cannot be added to (\(error))")
            }
            packet.appendDescriptions(of: xmp)
        }
        do {
            return try JPEGSegments.replacingAPP1(
                startingWith: JPEGSegments.xmpHeader, with: JPEGSegments.xmpHeader + [UInt8](packet.data), in: jpeg, what: "XMP packet")
        } catch {
            throw MatteboxError("\(path): \(error)")
        }
    }

    private static func readFile(_ url: URL) throws -> [UInt8] {
        do { return Array(try Data(contentsOf: url)) } catch {
            throw MatteboxError("cannot read \(url.path): \(SystemError.describe(error))")
        }
    }
}
