import Foundation
import MatteboxCore

/// Disparity maps on disk in the formats stereo people use: PFM (float32,
/// Middlebury's format) and 16-bit PNG holding disparity × scale with the
/// scale written into the PNG as a tEXt chunk (`mattebox:disparity-scale`).
public enum DisparityFile {
    /// The key of the PNG tEXt chunk that states the scale.
    public static let scaleKey = "mattebox:disparity-scale"

    /// PFM: "Pf", size, a negative scale for little-endian, rows bottom to top.
    public static func pfm(_ disparity: PixelImage) -> Data {
        precondition(disparity.format == .float32 && disparity.channels == 1)
        var data = Data("Pf\n\(disparity.width) \(disparity.height)\n-1.0\n".utf8)
        let rowBytes = disparity.width * 4
        for y in (0..<disparity.height).reversed() {
            data.append(Data(bytes: disparity.data + y * rowBytes, count: rowBytes))
        }
        return data
    }

    /// Reads a little-endian PFM written by `pfm` or by Middlebury's tools.
    public static func readPFM(_ data: Data, name: String) throws -> PixelImage {
        var lines: [String] = []
        var index = data.startIndex
        while lines.count < 3, index < data.endIndex {
            guard let end = data[index...].firstIndex(of: 0x0A) else { break }
            lines.append(String(decoding: data[index..<end], as: UTF8.self).trimmingCharacters(in: .whitespaces))
            index = end + 1
        }
        let size = lines.count == 3 ? lines[1].split(separator: " ").compactMap { Int($0) } : []
        guard lines.first == "Pf", size.count == 2, size[0] > 0, size[1] > 0, let scale = Double(lines[2]), scale < 0,
            data.endIndex - index == size[0] * size[1] * 4
        else { throw MatteboxError("\(name): not a little-endian single-channel PFM of the size its header states") }
        let image = PixelImage(width: size[0], height: size[1], channels: 1, format: .float32)
        let rowBytes = size[0] * 4
        for y in 0..<size[1] {
            let start = index + (size[1] - 1 - y) * rowBytes
            data[start..<start + rowBytes].withUnsafeBytes { (image.data + y * rowBytes).copyMemory(from: $0.baseAddress!, byteCount: rowBytes) }
        }
        return image
    }

    /// 16-bit grey samples of disparity × scale (clamped to 0...65535).
    public static func scaledUInt16(_ disparity: PixelImage, scale: Double) -> PixelImage {
        let out = PixelImage(width: disparity.width, height: disparity.height, channels: 1, format: .uint16)
        let source = disparity.data.assumingMemoryBound(to: Float.self)
        let target = out.data.assumingMemoryBound(to: UInt16.self)
        for i in 0..<(disparity.width * disparity.height) {
            target[i] = UInt16(max(0, min(65535, (Double(source[i]) * scale).rounded())))
        }
        return out
    }

    /// A PNG with a tEXt chunk added right after IHDR.
    public static func addingText(_ value: String, key: String, toPNG png: Data) throws -> Data {
        let signature = 8, ihdrEnd = signature + 8 + 13 + 4
        guard png.count > ihdrEnd, png[png.startIndex + 12..<png.startIndex + 16] == Data("IHDR".utf8) else {
            throw MatteboxError("not a PNG to add text to")
        }
        var body = Data("tEXt".utf8)
        body.append(Data(key.utf8))
        body.append(0)
        body.append(Data(value.utf8))
        var chunk = Data()
        chunk.append(contentsOf: withUnsafeBytes(of: UInt32(body.count - 4).bigEndian) { Array($0) })
        chunk.append(body)
        chunk.append(contentsOf: withUnsafeBytes(of: CRC32.checksum(body).bigEndian) { Array($0) })
        var out = Data(png.prefix(ihdrEnd))
        out.append(chunk)
        out.append(png.dropFirst(ihdrEnd))
        return out
    }
}

/// The CRC-32 of PNG chunks (ISO 3309, polynomial 0xEDB88320).
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }

    static func checksum(_ data: Data) -> UInt32 {
        ~data.reduce(~UInt32(0)) { crc, byte in table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    }
}
