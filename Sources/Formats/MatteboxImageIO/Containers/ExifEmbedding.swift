import Foundation
import MatteboxCore
import MatteboxMetadata
import MatteboxRuntime

/// Puts an EXIF block into an encoded JPEG (an APP1 segment) or PNG (an eXIf
/// chunk), or an XMP packet into a JPEG, replacing any already there; with
/// none, removes it. Mattebox writes EXIF itself so the
/// bytes it keeps (maker notes, lens data) are exactly the camera's.
enum ExifEmbedding {
    static func embed(_ exif: ExifBlock?, inJPEG jpeg: Data) throws -> Data {
        let header = JPEGSegments.exifHeader
        return Data(try JPEGSegments.replacingAPP1(startingWith: header, with: exif.map { header + $0.bytes }, in: [UInt8](jpeg), what: "EXIF block"))
    }

    /// The standard XMP packet (not extended XMP's segments, which it names and which stay).
    static func embed(xmp: Data?, inJPEG jpeg: Data) throws -> Data {
        let header = JPEGSegments.xmpHeader
        return Data(try JPEGSegments.replacingAPP1(startingWith: header, with: xmp.map { header + [UInt8]($0) }, in: [UInt8](jpeg), what: "XMP packet"))
    }

    static func embed(_ exif: ExifBlock?, inPNG png: Data) throws -> Data {
        let bytes = [UInt8](png)
        guard bytes.count > 8, bytes[0] == 0x89, bytes[1] == 0x50 else {
            throw MatteboxError("encoded PNG has no PNG signature")
        }
        var output = Array(bytes[0..<8])
        var offset = 8
        var inserted = false
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8
                | Int(bytes[offset + 3])
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let end = offset + 12 + length
            guard end <= bytes.count else { break }
            if type == "IDAT", !inserted, let exif {
                output += PNGChunk.make(type: "eXIf", data: exif.bytes)
                inserted = true
            }
            if type != "eXIf" { output += bytes[offset..<end] }
            offset = end
        }
        output += bytes[offset...]
        return Data(output)
    }
}
