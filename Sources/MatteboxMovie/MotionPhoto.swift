import Foundation
import MatteboxISOBMFF
import MatteboxRuntime

/// Google's Motion Photo (Android "Motion Photo format 1.0"): one JPEG whose
/// XMP carries the Camera properties (`GCamera:MotionPhoto`, version, the
/// still's presentation time in the movie) and a Container directory (the
/// primary image, then the MP4 appended after the JPEG, by length), with the
/// MP4 bytes after the image's end. Written as `<name>.MP.jpg`, the file name
/// pattern the format asks writers to use.
public enum MotionPhoto {
    static let cameraNamespace = "http://ns.google.com/photos/1.0/camera/"
    static let containerNamespace = "http://ns.google.com/photos/1.0/container/"
    static let itemNamespace = "http://ns.google.com/photos/1.0/container/item/"
    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    /// Makes `<still stem>.MP.jpg` from the JPEG still and the frames, and
    /// removes the plain still it replaces (a file this capture just wrote).
    public static func make(
        still: URL, frames: [MovieFrame], stillTimestamp: UInt64, format: MovieFormat, settings: MovieSettings
    ) throws -> URL {
        let jpeg = try readFile(still)
        guard jpeg.starts(with: [0xFF, 0xD8]) else {
            throw MatteboxError("\(still.path): a Motion Photo is written around a JPEG still; write the still as JPEG (--format jpeg)")
        }
        guard let first = frames.first else { throw MatteboxError("no frames for the Motion Photo's movie") }
        let destination = still.deletingPathExtension().appendingPathExtension("MP.jpg")
        guard !FileManager.default.fileExists(atPath: destination.path) else {
            throw MatteboxError("\(destination.path) already exists; a Motion Photo never replaces a file")
        }
        let temporary = still.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).mp4").path
        defer { unlink(temporary) }
        var mp4Settings = settings
        mp4Settings.container = .mp4
        let writer = try MovieWriter(path: temporary, format: format, settings: mp4Settings, fragmented: false)
        for frame in frames { try writer.append(frame) }
        try writer.finish()
        let movie = try readFile(URL(fileURLWithPath: temporary))
        let presentationMicroseconds = Int64(stillTimestamp &- first.timestamp) / 1000
        let xmp = packet(movieLength: movie.count, presentationMicroseconds: presentationMicroseconds)
        let photo = try insertingXMP(xmp, into: jpeg, path: still.path)
        try AtomicFile.write(Data(photo + movie), to: destination)
        unlink(still.path)
        return destination
    }

    /// The XMP packet: Camera properties and the Container directory.
    static func packet(movieLength: Int, presentationMicroseconds: Int64) -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Mattebox">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          \(description(movieLength: movieLength, presentationMicroseconds: presentationMicroseconds))
         </rdf:RDF>
        </x:xmpmeta>
        """
    }

    static func description(movieLength: Int, presentationMicroseconds: Int64) -> String {
        """
        <rdf:Description rdf:about="" xmlns:GCamera="\(cameraNamespace)" xmlns:Container="\(containerNamespace)" xmlns:Item="\(itemNamespace)" GCamera:MotionPhoto="1" GCamera:MotionPhotoVersion="1" GCamera:MotionPhotoPresentationTimestampUs="\(presentationMicroseconds)">
           <Container:Directory>
            <rdf:Seq>
             <rdf:li rdf:parseType="Resource">
              <Container:Item Item:Mime="image/jpeg" Item:Semantic="Primary" Item:Length="0" Item:Padding="0"/>
             </rdf:li>
             <rdf:li rdf:parseType="Resource">
              <Container:Item Item:Mime="video/mp4" Item:Semantic="MotionPhoto" Item:Length="\(movieLength)" Item:Padding="0"/>
             </rdf:li>
            </rdf:Seq>
           </Container:Directory>
          </rdf:Description>
        """
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
