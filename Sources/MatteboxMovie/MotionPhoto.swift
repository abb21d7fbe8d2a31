import Foundation
import MatteboxISOBMFF
import MatteboxRuntime

/// Google's Motion Photo (Android "Motion Photo format 1.0"): one JPEG or
/// HEIC whose XMP carries the Camera properties (`GCamera:MotionPhoto`,
/// version, the still's presentation time in the movie) and a Container
/// directory (the primary image, then the MP4, located by its length from the
/// end of the file), with the MP4 after the image: right after a JPEG's end,
/// in an `mpvd` box after a HEIC's boxes. Written as `<name>.MP.jpg` or
/// `<name>.MP.heic`, the file name pattern the format asks writers to use.
public enum MotionPhoto {
    static let cameraNamespace = "http://ns.google.com/photos/1.0/camera/"
    static let containerNamespace = "http://ns.google.com/photos/1.0/container/"
    static let itemNamespace = "http://ns.google.com/photos/1.0/container/item/"
    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    /// The MP4 a Motion Photo carries, and the still's time in it.
    public struct Movie: Sendable {
        public var bytes: [UInt8]
        public var presentationMicroseconds: Int64
    }

    /// Makes `<still stem>.MP.jpg` from the JPEG still and the frames, and
    /// removes the plain still it replaces (a file this capture just wrote).
    public static func make(
        still: URL, frames: [MovieFrame], stillTimestamp: UInt64, format: MovieFormat, settings: MovieSettings
    ) throws -> URL {
        let jpeg = try readFile(still)
        guard jpeg.starts(with: [0xFF, 0xD8]) else {
            throw MatteboxError("\(still.path): a JPEG Motion Photo is written around a JPEG still")
        }
        let destination = try self.destination(for: still, fileExtension: "jpg")
        let movie = try encode(frames: frames, stillTimestamp: stillTimestamp, format: format, settings: settings, beside: still)
        let xmp = packet(movieLength: movie.bytes.count, presentationMicroseconds: movie.presentationMicroseconds)
        let photo = try insertingXMP(xmp, into: jpeg, path: still.path)
        try AtomicFile.write(Data(photo + movie.bytes), to: destination)
        unlink(still.path)
        return destination
    }

    /// `<still stem>.MP.<ext>`, which must not exist yet.
    public static func destination(for still: URL, fileExtension: String) throws -> URL {
        let destination = still.deletingPathExtension().appendingPathExtension("MP.\(fileExtension)")
        guard !FileManager.default.fileExists(atPath: destination.path) else {
            throw MatteboxError("\(destination.path) already exists; a Motion Photo never replaces a file")
        }
        return destination
    }

    /// The frames as a plain (not fragmented) MP4, encoded through a hidden file beside the still.
    public static func encode(
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

    /// The XMP packet: Camera properties and the Container directory.
    static func packet(movieLength: Int, presentationMicroseconds: Int64, primaryMime: String = "image/jpeg", padding: Int = 0) -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Mattebox">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          \(description(movieLength: movieLength, presentationMicroseconds: presentationMicroseconds, primaryMime: primaryMime, padding: padding))
         </rdf:RDF>
        </x:xmpmeta>
        """
    }

    static func description(movieLength: Int, presentationMicroseconds: Int64, primaryMime: String = "image/jpeg", padding: Int = 0) -> String {
        """
        <rdf:Description rdf:about="" xmlns:GCamera="\(cameraNamespace)" xmlns:Container="\(containerNamespace)" xmlns:Item="\(itemNamespace)" GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1" GCamera:MotionPhotoPresentationTimestampUs="\(presentationMicroseconds)">
           <Container:Directory>
            <rdf:Seq>
             <rdf:li rdf:parseType="Resource">
              <Container:Item Item:Mime="\(primaryMime)" Item:Semantic="Primary" Item:Length="0" Item:Padding="\(padding)"/>
             </rdf:li>
             <rdf:li rdf:parseType="Resource">
              <Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="\(movieLength)" Item:Padding="0"/>
             </rdf:li>
            </rdf:Seq>
           </Container:Directory>
          </rdf:Description>
        """
    }

    /// A still's XMP packet with the Motion Photo properties added as a
    /// further rdf:Description (XMP allows several), so nothing there is
    /// lost; a new packet when it has none. For a HEIC still, whose movie
    /// follows the image in an `mpvd` box (`padding` is its 8-byte header).
    public static func xmp(adding movie: Movie, to existing: Data?, primaryMime: String, padding: Int) -> Data {
        let packet = packet(
            movieLength: movie.bytes.count, presentationMicroseconds: movie.presentationMicroseconds, primaryMime: primaryMime,
            padding: padding)
        guard let existing, case let text = String(decoding: existing, as: UTF8.self), let close = text.range(of: "</rdf:RDF>") else {
            return Data(packet.utf8)
        }
        return Data(text.replacingCharacters(in: close.lowerBound..<close.lowerBound, with: description(packet) + "\n ").utf8)
    }

    /// The JPEG with the Motion Photo XMP: added as its own APP1 segment after
    /// the EXIF one, or, when the JPEG has XMP already, added to it as a
    /// further rdf:Description (XMP allows several), so nothing there is lost.
    static func insertingXMP(_ xmp: String, into jpeg: [UInt8], path: String) throws -> [UInt8] {
        var position = 2
        var insertAt = 2
        while position + 4 <= jpeg.count, jpeg[position] == 0xFF {
            let marker = jpeg[position + 1]
            if marker == 0xDA || marker == 0xD9 { break }
            let length = Int(jpeg[position + 2]) << 8 | Int(jpeg[position + 3])
            guard length >= 2, position + 2 + length <= jpeg.count else { throw MatteboxError("\(path): damaged JPEG segment at offset \(position)") }
            let body = jpeg[(position + 4)..<(position + 2 + length)]
            if marker == 0xE1, body.starts(with: xmpSignature) {
                let existing = String(decoding: body.dropFirst(xmpSignature.count), as: UTF8.self)
                guard let close = existing.range(of: "</rdf:RDF>") else { throw MatteboxError("\(path): its XMP has no rdf:RDF to add to") }
                let merged = existing.replacingCharacters(in: close.lowerBound..<close.lowerBound, with: description(xmp) + "\n ")
                return Array(jpeg[..<position]) + (try segment(merged, path: path)) + Array(jpeg[(position + 2 + length)...])
            }
            if marker == 0xE0 || marker == 0xE1 { insertAt = position + 2 + length }
            position += 2 + length
        }
        return Array(jpeg[..<insertAt]) + (try segment(xmp, path: path)) + Array(jpeg[insertAt...])
    }

    private static func description(_ packet: String) -> String {
        guard let start = packet.range(of: "<rdf:Description"), let end = packet.range(of: "</rdf:Description>") else { return "" }
        return String(packet[start.lowerBound..<end.upperBound])
    }

    private static func segment(_ xmp: String, path: String) throws -> [UInt8] {
        let body = xmpSignature + Array(xmp.utf8)
        guard body.count + 2 <= 0xFFFF else { throw MatteboxError("\(path): the XMP would not fit one JPEG segment") }
        return [0xFF, 0xE1, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
    }

    private static func readFile(_ url: URL) throws -> [UInt8] {
        do { return Array(try Data(contentsOf: url)) } catch {
            throw MatteboxError("cannot read \(url.path): \(SystemError.describe(error))")
        }
    }
}
