import MatteboxCore
import MatteboxRuntime

/// Turns an auxiliary image into what HEIF stores: 8-bit grey for depth,
/// disparity and mattes (as iPhones do), 1 or 3 channels of 8 or 16 bits for
/// the rest. Depth and disparity in metres or 1/m (float, or 16-bit
/// millimetres) are quantised over their own range, which is then recorded.
enum StorablePixels {
    struct Result {
        let image: PixelImage
        let depth: DepthRepresentation?
        /// True when the stored values are the ones read (so the old XMP still holds).
        let unchanged: Bool
        /// True when the range is only relative (8-bit input with no range given).
        let relative: Bool
    }

    static func prepare(_ image: PixelImage, role: ImageRole, info: AuxiliaryImageInfo?) throws -> Result {
        if role == .depth || role == .disparity {
            return try depth(image, role: role, known: info?.depth)
        }
        if AuxiliaryType.isMatte(role) {
            let grey = image.channels == 1 && image.format == .uint8 ? image : firstChannelAs8Bit(image)
            return Result(image: grey, depth: nil, unchanged: grey === image, relative: false)
        }
        switch (image.channels, image.format) {
        case (1, .uint8), (3, .uint8), (1, .uint16), (3, .uint16):
            return Result(image: image, depth: nil, unchanged: true, relative: false)
        case (2, _):
            return Result(image: firstChannelAs8Bit(image), depth: nil, unchanged: false, relative: false)
        default:
            return Result(image: rgbAs8Bit(image), depth: nil, unchanged: false, relative: false)
        }
    }

    private static func depth(_ image: PixelImage, role: ImageRole, known: DepthRepresentation?) throws -> Result {
        let disparity = role == .disparity
        let kind: DepthRepresentation.Kind = disparity ? .uniformDisparity : .uniformZ
        if image.format == .uint8 {
            let grey = image.channels == 1 ? image : firstChannelAs8Bit(image)
            if let known, known.valueRange != nil {
                return Result(image: grey, depth: known, unchanged: grey === image, relative: false)
            }
            return Result(image: grey, depth: representation(kind, 0...1), unchanged: false, relative: true)
        }
        if image.format == .uint16, let known, known.valueRange != nil {
            return Result(image: firstChannelAs8Bit(image), depth: known, unchanged: false, relative: false)
        }
        // Metric values: float as is, 16-bit as millimetres (depth) or relative (disparity).
        let scale = image.format == .float32 ? 1.0 : (disparity ? 1.0 / 65535 : 0.001)
        var low = Double.infinity, high = -Double.infinity
        for y in 0..<image.height {
            for x in 0..<image.width {
                let value = image.sample(x: x, y: y) * scale
                guard value.isFinite, value > 0 || disparity else { continue }
                low = min(low, value)
                high = max(high, value)
            }
        }
        guard low.isFinite else {
            throw MatteboxError("\(role) has no valid values (all zero, NaN or infinite)")
        }
        if high <= low { high = low + max(abs(low), 1) * 1e-6 }
        let quantised = PixelImage(width: image.width, height: image.height, channels: 1, format: .uint8)
        let output = quantised.data.assumingMemoryBound(to: UInt8.self)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let value = image.sample(x: x, y: y) * scale
                let level = value.isFinite ? ((value - low) / (high - low) * 255).rounded() : 0
                output[y * image.width + x] = UInt8(max(0, min(255, level)))
            }
        }
        return Result(image: quantised, depth: representation(kind, low...high), unchanged: false, relative: scale != 0.001 && image.format != .float32)
    }

    private static func representation(_ kind: DepthRepresentation.Kind, _ range: ClosedRange<Double>) -> DepthRepresentation {
        kind == .uniformZ
            ? DepthRepresentation(kind: kind, nearestDepth: range.lowerBound, farthestDepth: range.upperBound)
            : DepthRepresentation(kind: kind, disparityMinimum: range.lowerBound, disparityMaximum: range.upperBound)
    }

    /// Channel 0 as 8 bits: 16-bit keeps its high byte, float is clamped to 0...1.
    static func firstChannelAs8Bit(_ image: PixelImage) -> PixelImage {
        image.converted(channels: 1, eightBit: true)
    }

    /// Channel 0 alone, in the image's own sample format.
    static func firstChannel(_ image: PixelImage) -> PixelImage {
        image.converted(channels: 1, eightBit: false)
    }

    private static func rgbAs8Bit(_ image: PixelImage) -> PixelImage {
        image.converted(channels: image.channels >= 3 ? 3 : 1, eightBit: true)
    }
}
