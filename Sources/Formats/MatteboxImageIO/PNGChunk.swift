import Foundation

/// PNG chunks (length, type, data, CRC-32), for the metadata Mattebox adds
/// to PNGs libvips wrote: EXIF, and the scale of 16-bit depth and disparity.
package enum PNGChunk {
    static func make(type: String, data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        let count = UInt32(data.count)
        var result: [UInt8] = [UInt8(count >> 24), UInt8((count >> 16) & 0xFF), UInt8((count >> 8) & 0xFF), UInt8(count & 0xFF)]
        result += typeBytes + data
        let crc = CRC32.checksum(typeBytes + data)
        result += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        return result
    }
}

/// The CRC-32 PNG chunks carry (ISO 3309, polynomial 0xEDB88320).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 != 0 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}

extension PNGChunk {
    /// The text of a tEXt chunk with `key`, read from the chunks before the image data.
    package static func text(_ key: String, in png: [UInt8]) -> String? {
        guard png.count > 8, png.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { return nil }
        var offset = 8
        while offset + 8 <= png.count {
            let length = Int(png[offset]) << 24 | Int(png[offset + 1]) << 16 | Int(png[offset + 2]) << 8 | Int(png[offset + 3])
            let type = String(decoding: png[offset + 4..<offset + 8], as: UTF8.self)
            let start = offset + 8
            guard length >= 0, start + length <= png.count, type != "IDAT" else { return nil }
            if type == "tEXt", let zero = png[start..<start + length].firstIndex(of: 0),
                String(decoding: png[start..<zero], as: UTF8.self) == key
            {
                return String(decoding: png[(zero + 1)..<(start + length)], as: UTF8.self)
            }
            offset = start + length + 4
        }
        return nil
    }
}
