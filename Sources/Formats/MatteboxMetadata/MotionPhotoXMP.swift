import Foundation

/// The XMP of a Google Motion Photo (Android "Motion Photo format 1.0", and
/// the older MicroVideo): the Camera properties and the Container directory
/// that locate the movie by its length from the end of the file. This is the
/// syntax alone; how each container holds the movie is the JPEG's and the
/// HEIF's business (`MotionPhotoTrailer`, `MotionPhotoVideoBox`), and making,
/// pairing and inspecting Motion Photos is `MatteboxPairedMedia`'s.
package enum MotionPhotoXMP {
    /// The note (by name) on a photo whose XMP claims a movie that could not be read.
    package static let unreadableMovieNote = "motionPhotoMovie"
    /// The movie's length from the end of the file, as the XMP gives it (nil when it is not readable XMP).
    package static func movieLength(_ xmp: Data) -> Int? {
        guard let packet = try? XMPPacket(xmp) else { return nil }
        if packet.value(.motionPhoto) == "1" {
            if let item = packet.directory.first(where: { $0["Semantic"] == "MotionPhoto" }) { return item["Length"].flatMap { Int($0) } }
        }
        if packet.value(.microVideo) == "1" { return packet.value(.microVideoOffset).flatMap { Int($0) } }
        return nil
    }

    /// Whether the XMP says the file is a Motion Photo (or MicroVideo), movie readable or not.
    package static func claimsAMovie(_ xmp: Data) -> Bool {
        guard let packet = try? XMPPacket(xmp) else { return false }
        return packet.value(.motionPhoto) == "1" || packet.value(.microVideo) == "1"
    }

    /// The still's time in the movie, in microseconds, when the XMP says.
    package static func presentationMicroseconds(_ xmp: Data) -> Int64? {
        (try? XMPPacket(xmp))?.value(.motionPhotoPresentationTimestampUs).flatMap { Int64($0) }
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
    package static func notAMotionPhoto(_ xmp: Data) -> Data {
        guard var packet = try? XMPPacket(xmp) else { return xmp }
        var changed = false
        for name in [XMPName.motionPhoto, .microVideo] where packet.value(name) == "1" {
            packet.replace(name, with: "0")
            changed = true
        }
        return changed ? packet.data : xmp
    }

    /// A new packet: the Camera properties and the Container directory (the
    /// primary, then the MP4 of `movieLength` bytes).
    package static func packet(movieLength: Int, presentationMicroseconds: Int64, primaryMime: String, padding: Int) -> XMPPacket {
        var packet = XMPPacket(toolkit: "Mattebox")
        packet.set(.motionPhoto, to: "1")
        packet.set(.motionPhotoVersion, to: "1")
        packet.set(.motionPhotoPresentationTimestampUs, to: String(presentationMicroseconds))
        packet.setDirectory(
            [
                ["Mime": primaryMime, "Semantic": "Primary", "Length": "0", "Padding": String(padding)],
                ["Mime": "video/mp4", "Semantic": "MotionPhoto", "Length": String(movieLength), "Padding": "0"],
            ], order: ["Mime", "Semantic", "Length", "Padding"])
        return packet
    }

    /// A still's XMP packet with the Motion Photo properties added as a
    /// further rdf:Description (XMP allows several), so nothing there is
    /// lost; a new packet when it has none or it cannot be read.
    package static func adding(
        movieLength: Int, presentationMicroseconds: Int64, to existing: Data?, primaryMime: String, padding: Int
    ) -> Data {
        let packet = packet(
            movieLength: movieLength, presentationMicroseconds: presentationMicroseconds, primaryMime: primaryMime, padding: padding)
        guard let existing, var merged = try? XMPPacket(existing) else { return packet.data }
        merged.appendDescriptions(of: packet)
        return merged.data
    }
}
