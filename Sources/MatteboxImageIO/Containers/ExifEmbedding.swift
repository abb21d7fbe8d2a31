import Foundation
import MatteboxCore
import MatteboxRuntime

/// Puts an EXIF block into an encoded JPEG (an APP1 segment) or PNG (an eXIf
/// chunk), replacing any EXIF already there; with no block, removes it. Mattebox writes EXIF itself so the
/// bytes it keeps (maker notes, lens data) are exactly the camera's.
enum ExifEmbedding {
    private static let exifHeader = Array("Exif\0\0".utf8)

    static func embed(_ exif: ExifBlock?, inJPEG jpeg: Data) throws -> Data {
        let payload = exifHeader + (exif?.bytes ?? [])
        guard payload.count + 2 <= 0xFFFF else {
            throw MatteboxError("the EXIF block (\(payload.count) bytes) is larger than a JPEG APP1 segment can hold")
        }
        let bytes = [UInt8](jpeg)
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else {
            throw MatteboxError("encoded JPEG has no start-of-image marker")
        }
        var output: [UInt8] = [0xFF, 0xD8]
        var segment: [UInt8] = []
        if exif != nil {
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
            let isExif = marker == 0xE1 && bytes[(offset + 4)..<min(end, offset + 10)].elementsEqual(exifHeader)
            if !inserted, marker != 0xE0 {
                output += segment
                inserted = true
            }
            if !isExif { output += bytes[offset..<end] }
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
