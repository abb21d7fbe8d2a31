import Foundation
import MatteboxCore
import MatteboxRuntime

/// Disparity maps on disk in the formats stereo people use: PFM (float32,
/// Middlebury's format); 16-bit PNGs with their scale are `ScaledPNG`'s.
package enum DisparityFile {

    /// PFM: "Pf", size, a negative scale for little-endian, rows bottom to top.
    package static func pfm(_ disparity: PixelImage) -> Data {
        precondition(disparity.format == .float32 && disparity.channels == 1)
        var data = Data("Pf\n\(disparity.width) \(disparity.height)\n-1.0\n".utf8)
        let rowBytes = disparity.width * 4
        for y in (0..<disparity.height).reversed() {
            data.append(Data(bytes: disparity.data + y * rowBytes, count: rowBytes))
        }
        return data
    }

    /// Reads a little-endian PFM written by `pfm` or by Middlebury's tools.
    package static func readPFM(_ data: Data, name: String) throws -> PixelImage {
        var lines: [String] = []
        var index = data.startIndex
        while lines.count < 3, index < data.endIndex {
            guard let end = data[index...].firstIndex(of: 0x0A) else { break }
            lines.append(String(decoding: data[index..<end], as: UTF8.self).trimmingCharacters(in: .whitespaces))
            index = end + 1
        }
        let size = lines.count == 3 ? lines[1].split(separator: " ").compactMap { Int($0) } : []
        // Sizes are checked before they are multiplied: a hostile header must not overflow the arithmetic.
        guard lines.first == "Pf", size.count == 2, (1...65_536).contains(size[0]), (1...65_536).contains(size[1]),
            let scale = Double(lines[2]), scale < 0, data.endIndex - index == size[0] * size[1] * 4
        else { throw MatteboxError("\(name): not a little-endian single-channel PFM of the size its header states") }
        let image = PixelImage(width: size[0], height: size[1], channels: 1, format: .float32)
        let rowBytes = size[0] * 4
        for y in 0..<size[1] {
            let start = index + (size[1] - 1 - y) * rowBytes
            data[start..<start + rowBytes].withUnsafeBytes { (image.data + y * rowBytes).copyMemory(from: $0.baseAddress!, byteCount: rowBytes) }
        }
        return image
    }
}
