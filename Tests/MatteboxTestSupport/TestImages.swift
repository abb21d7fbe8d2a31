import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxRuntime

/// Images made by the tests themselves: an asymmetric pattern (so every flip
/// and rotation is visible), and photos written with a chosen EXIF orientation.
package enum TestImages {
    /// An RGB pattern whose every pixel differs from its mirror images.
    package static func pattern(width: Int = 48, height: Int = 32) -> PixelImage {
        let image = PixelImage(width: width, height: height, channels: 3, format: .uint8)
        let pixels = image.data.assumingMemoryBound(to: UInt8.self)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 3
                pixels[index] = UInt8((x * 255) / max(1, width - 1))
                pixels[index + 1] = UInt8((y * 255) / max(1, height - 1))
                pixels[index + 2] = UInt8((x * 7 + y * 13) % 256)
            }
        }
        return image
    }

    /// A one-channel image (a stand-in matte or 16-bit depth) with a gradient.
    package static func matte(width: Int, height: Int, format: SampleFormat = .uint8) -> PixelImage {
        let image = PixelImage(width: width, height: height, channels: 1, format: format)
        for y in 0..<height {
            for x in 0..<width {
                let value = (x * 3 + y * 5) % 251
                switch format {
                case .uint8: image.data.storeBytes(of: UInt8(value), toByteOffset: y * width + x, as: UInt8.self)
                case .uint16: image.data.storeBytes(of: UInt16(value * 250), toByteOffset: (y * width + x) * 2, as: UInt16.self)
                case .float32: image.data.storeBytes(of: Float(value) / 10, toByteOffset: (y * width + x) * 4, as: Float.self)
                }
            }
        }
        return image
    }

    /// Writes the pattern as a lossless PNG whose EXIF says `orientation`.
    package static func writePhoto(to url: URL, orientation: Int, image: PixelImage = pattern()) throws {
        var metadata = PhotoMetadata()
        metadata.exif = ExifBlock.empty()
        metadata.orientation = ExifOrientation(orientation)!
        let photo = Photo(primary: image, metadata: metadata)
        try AtomicFile.write(try ImageEncoder.encode(photo, as: .png), to: url)
    }

    /// The pixels `vips autorot` makes of a file: the independent oracle for orientation.
    /// Single-channel files (depth, mattes) are read as such with `auxiliary`.
    package static func autorotated(_ url: URL, scratch: URL, auxiliary: Bool = false) throws -> PixelImage {
        let out = scratch.appendingPathComponent("autorot-\(UUID().uuidString.prefix(6)).png")
        let result = TestEnvironment.run(["/usr/bin/vips", "autorot", url.path, out.path])
        guard result.status == 0 else { throw MatteboxError("vips autorot failed: \(result.errors)") }
        return auxiliary ? try ImageDecoder.decodeAuxiliaryImage(at: out) : try ImageDecoder.decodePhoto(at: out).primary
    }

    /// The pixels libheif's own `heif-convert` shows for a HEIF (irot and imir applied):
    /// the independent oracle for what a HEIF displays.
    package static func shownByLibheif(_ url: URL, scratch: URL) throws -> PixelImage {
        let out = scratch.appendingPathComponent("libheif-\(UUID().uuidString.prefix(6)).png")
        let result = TestEnvironment.run(["/usr/bin/heif-convert", url.path, out.path])
        guard result.status == 0 else { throw MatteboxError("heif-convert failed: \(result.errors)") }
        return try ImageDecoder.decodePhoto(at: out).primary
    }

    /// The mean absolute difference of two same-sized images' samples.
    package static func meanDifference(_ a: PixelImage, _ b: PixelImage) -> Double {
        precondition(a.byteCount == b.byteCount && a.format == .uint8 && b.format == .uint8)
        let x = a.data.assumingMemoryBound(to: UInt8.self), y = b.data.assumingMemoryBound(to: UInt8.self)
        var total = 0
        for index in 0..<a.byteCount { total += abs(Int(x[index]) - Int(y[index])) }
        return Double(total) / Double(max(1, a.byteCount))
    }
}
