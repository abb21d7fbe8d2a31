import Foundation

/// PNG chunks (length, type, data, CRC-32), for the metadata Mattebox adds
/// to PNGs libvips wrote: EXIF, and the scale of 16-bit depth and disparity.
enum PNGChunk {
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
