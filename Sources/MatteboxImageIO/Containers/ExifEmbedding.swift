import Foundation
import MatteboxCore
import MatteboxRuntime

/// Puts an EXIF block into an encoded JPEG (an APP1 segment) or PNG (an eXIf
/// chunk), or an XMP packet into a JPEG, replacing any already there; with
/// none, removes it. Mattebox writes EXIF itself so the
/// bytes it keeps (maker notes, lens data) are exactly the camera's.
enum ExifEmbedding {
    private static let exifHeader = Array("Exif\0\0".utf8)

    static func embed(_ exif: ExifBlock?, inJPEG jpeg: Data) throws -> Data {
        try replaceAPP1(header: exifHeader, payload: exif.map { exifHeader + $0.bytes }, in: jpeg, what: "EXIF block")
    }

    private static let xmpHeader = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    /// The standard XMP packet (not extended XMP's segments, which it names and which stay).
    static func embed(xmp: Data?, inJPEG jpeg: Data) throws -> Data {
        try replaceAPP1(header: xmpHeader, payload: xmp.map { xmpHeader + [UInt8]($0) }, in: jpeg, what: "XMP packet")
    }

    /// Replaces the APP1 segments whose payload starts with `header` by one
    /// holding `payload` (none when nil), placed after JFIF's APP0; every
    /// other segment, the scan and what follows it are kept byte for byte.
    private static func replaceAPP1(header: [UInt8], payload: [UInt8]?, in jpeg: Data, what: String) throws -> Data {
        if let payload, payload.count + 2 > 0xFFFF {
            throw MatteboxError("the \(what) (\(payload.count) bytes) is larger than a JPEG APP1 segment can hold")
        }
        let bytes = [UInt8](jpeg)
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else {
            throw MatteboxError("encoded JPEG has no start-of-image marker")
        }
        var output: [UInt8] = [0xFF, 0xD8]
        var segment: [UInt8] = []
        if let payload {
            segment = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        var offset = 2
        var inserted = false
        // Walk the marker segments before the scan; keep JFIF's APP0 first.
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            if marker == 0xDA { break }
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let end = offset + 2 + length
            guard length >= 2, end <= bytes.count else { break }
            let replaced = marker == 0xE1 && bytes[(offset + 4)..<min(end, offset + 4 + header.count)].elementsEqual(header)
            if !inserted, marker != 0xE0 {
                output += segment
                inserted = true
            }
            if !replaced { output += bytes[offset..<end] }
            offset = end
        }
        if !inserted { output += segment }
        output += bytes[offset...]
        return Data(output)
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
