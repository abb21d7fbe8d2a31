import Foundation
import MatteboxCore
import MatteboxRuntime

/// Float images (depth in metres, disparity in pixels or 1/m) as 16-bit grey
/// PNGs any tool can read: each sample is value × scale, clamped to
/// 0...65535, and the scale is stated in a tEXt chunk (key `mattebox:<what>-scale`).
package enum ScaledPNG {
    /// The tEXt key that states the scale of a PNG of `what` (depth, disparity, ...).
    package static func scaleKey(_ what: String) -> String { "mattebox:\(what)-scale" }

    /// Without a scale: millimetres for depth in metres (as 16-bit depth is
    /// stored everywhere), else the largest power of two that keeps the
    /// image's largest value within 16 bits.
    package static func encode(_ image: PixelImage, scale: Double? = nil, what: String) throws -> Data {
        let scale = scale ?? (what == "depth" ? 1000 : powerOfTwoScale(image))
        let png = try ImageEncoder.encode(scaledUInt16(image, scale: scale), as: .png)
        return try addingText(String(scale), key: scaleKey(what), toPNG: png)
    }

    static func powerOfTwoScale(_ image: PixelImage) -> Double {
        var maximum = 0.0
        for y in 0..<image.height {
            for x in 0..<image.width where image.sample(x: x, y: y).isFinite { maximum = max(maximum, image.sample(x: x, y: y)) }
        }
        return maximum > 0 ? pow(2, log2(65535 / maximum).rounded(.down)) : 1
    }

    /// 16-bit grey samples of value × scale (clamped to 0...65535).
    package static func scaledUInt16(_ image: PixelImage, scale: Double) -> PixelImage {
        precondition(image.format == .float32 && image.channels == 1)
        let out = PixelImage(width: image.width, height: image.height, channels: 1, format: .uint16)
        let target = out.data.assumingMemoryBound(to: UInt16.self)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let value = Double(image.sample(x: x, y: y)) * scale
                target[y * image.width + x] = value.isFinite ? UInt16(max(0, min(65535, value.rounded()))) : 0
            }
        }
        return out
    }

    /// A PNG with a tEXt chunk added right after IHDR.
    package static func addingText(_ value: String, key: String, toPNG png: Data) throws -> Data {
        let bytes = [UInt8](png)
        let ihdrEnd = 8 + 8 + 13 + 4
        guard bytes.count > ihdrEnd, bytes[12..<16] == ArraySlice("IHDR".utf8) else {
            throw MatteboxError("not a PNG to add text to")
        }
        let text = PNGChunk.make(type: "tEXt", data: Array(key.utf8) + [0] + Array(value.utf8))
        return Data(bytes[0..<ihdrEnd] + text + bytes[ihdrEnd...])
    }
}
