import Foundation
import MatteboxCore
import MatteboxRuntime

/// Windows BMP, read only, by Mattebox itself: libvips reads BMP only through
/// ImageMagick, whose loaders are blocked. Uncompressed 8-bit (palette),
/// 24-bit and 32-bit files (what labelled data sets and Windows tools
/// write), bottom-up or top-down; every size and offset is checked first.
struct BMPContainer: ImageContainer {
    let name = "bmp"
    let displayName = "BMP"
    let fileExtension = "bmp"

    func recognizes(_ header: [UInt8]) -> Bool { header.count >= 26 && header[0] == 0x42 && header[1] == 0x4D }

    func readPhoto(at url: URL) throws -> Photo {
        let bytes = [UInt8](try Data(contentsOf: url))
        do {
            return Photo(primary: try Self.decode(bytes), source: url)
        } catch let error as MatteboxError {
            throw MatteboxError("\(url.path): \(error.message)")
        }
    }

    static let maximumPixels = 200_000_000

    static func decode(_ bytes: [UInt8]) throws -> PixelImage {
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        guard bytes.count >= 54 else { throw MatteboxError("truncated BMP header") }
        let dataOffset = u32(10), headerSize = u32(14)
        guard headerSize >= 40, 14 + headerSize <= bytes.count else { throw MatteboxError("unsupported BMP header (\(headerSize) bytes)") }
        let width = Int(Int32(truncatingIfNeeded: u32(18)))
        let signedHeight = Int(Int32(truncatingIfNeeded: u32(22)))
        let bits = u16(28), compression = u32(30)
        let height = abs(signedHeight)
        guard width > 0, height > 0, width * height <= maximumPixels else {
            throw MatteboxError("BMP size \(width)x\(signedHeight) is not a size Mattebox reads")
        }
        guard [8, 24, 32].contains(bits), compression == 0 || (compression == 3 && bits == 32) else {
            throw MatteboxError("compressed or \(bits)-bit BMPs are not read (only uncompressed 8, 24 and 32-bit)")
        }
        let rowBytes = (width * bits + 31) / 32 * 4
        guard dataOffset >= 14 + headerSize, dataOffset + rowBytes * height <= bytes.count else {
            throw MatteboxError("BMP pixel data runs past the end of the file (truncated?)")
        }
        var palette: [[UInt8]] = []
        if bits == 8 {
            let colours = u32(46) == 0 ? 256 : min(256, u32(46))
            let start = 14 + headerSize
            guard start + colours * 4 <= dataOffset else { throw MatteboxError("BMP palette runs into the pixel data") }
            palette = (0..<colours).map { i in [bytes[start + i * 4 + 2], bytes[start + i * 4 + 1], bytes[start + i * 4]] }
        }
        let image = PixelImage(width: width, height: height, channels: 3, format: .uint8)
        let out = image.data.assumingMemoryBound(to: UInt8.self)
        for y in 0..<height {
            let row = dataOffset + (signedHeight > 0 ? height - 1 - y : y) * rowBytes
            for x in 0..<width {
                let target = (y * width + x) * 3
                switch bits {
                case 8:
                    let index = Int(bytes[row + x])
                    guard index < palette.count else { throw MatteboxError("BMP pixel names colour \(index) of \(palette.count)") }
                    (out[target], out[target + 1], out[target + 2]) = (palette[index][0], palette[index][1], palette[index][2])
                default:
                    let source = row + x * (bits / 8)
                    (out[target], out[target + 1], out[target + 2]) = (bytes[source + 2], bytes[source + 1], bytes[source])
                }
            }
        }
        return image
    }
}

/// The BMP reader on its own, for the fuzz targets (`Tests/Fuzz`).
package enum BMPReader {
    package static func decode(_ bytes: [UInt8]) throws -> PixelImage { try BMPContainer.decode(bytes) }
}
