import Foundation

/// How each channel of a pixel is stored. The raw values match `mbx_sample_format`
/// in the plugin ABI so images cross the boundary without translation.
package enum SampleFormat: Int, Sendable, Codable, CustomStringConvertible {
    case uint8 = 1
    case uint16 = 2
    case float32 = 3

    package var bytesPerSample: Int {
        switch self {
        case .uint8: return 1
        case .uint16: return 2
        case .float32: return 4
        }
    }

    package var description: String {
        switch self {
        case .uint8: return "8-bit"
        case .uint16: return "16-bit"
        case .float32: return "float"
        }
    }
}

/// An interleaved, tightly packed image in memory: the primary image of a photo
/// or one of its auxiliary images (depth, mattes).
///
/// It is a reference type so plugins can write into its pixels through the C ABI
/// without copies; a photo owns its images and hands them to one stage at a time.
// Unchecked: pixel memory plugins write through the C ABI; a photo's images belong to one stage at a time (ARCHITECTURE.md, Threading).
package final class PixelImage: @unchecked Sendable {
    package let width: Int
    package let height: Int
    package let channels: Int
    package let format: SampleFormat
    package let data: UnsafeMutableRawPointer
    private let release: @Sendable (UnsafeMutableRawPointer) -> Void

    package var bytesPerRow: Int { width * channels * format.bytesPerSample }
    package var byteCount: Int { bytesPerRow * height }

    /// A new image with every sample zero.
    package init(width: Int, height: Int, channels: Int, format: SampleFormat) {
        precondition(width > 0 && height > 0 && (1...4).contains(channels), "invalid image shape")
        self.width = width
        self.height = height
        self.channels = channels
        self.format = format
        let count = width * height * channels * format.bytesPerSample
        let memory = UnsafeMutableRawPointer.allocate(byteCount: count, alignment: 64)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: count)
        self.data = memory
        self.release = { $0.deallocate() }
    }

    /// Takes ownership of memory allocated elsewhere (libvips), freed by `release`.
    package init(
        adopting data: UnsafeMutableRawPointer, width: Int, height: Int, channels: Int,
        format: SampleFormat, release: @escaping @Sendable (UnsafeMutableRawPointer) -> Void
    ) {
        self.width = width
        self.height = height
        self.channels = channels
        self.format = format
        self.data = data
        self.release = release
    }

    deinit { release(data) }

    /// An independent copy of the pixels.
    package func copy() -> PixelImage {
        let twin = PixelImage(width: width, height: height, channels: channels, format: format)
        twin.data.copyMemory(from: data, byteCount: byteCount)
        return twin
    }

    /// One sample as a Double, for checks and statistics (not for hot loops).
    package func sample(x: Int, y: Int, channel: Int = 0) -> Double {
        let index = (y * width + x) * channels + channel
        switch format {
        case .uint8: return Double(data.load(fromByteOffset: index, as: UInt8.self))
        case .uint16: return Double(data.load(fromByteOffset: index * 2, as: UInt16.self))
        case .float32: return Double(data.load(fromByteOffset: index * 4, as: Float.self))
        }
    }

    /// The smallest and largest finite value of a channel; nil when it has none.
    package func finiteRange(channel: Int = 0) -> ClosedRange<Double>? {
        var low = Double.infinity, high = -Double.infinity
        for y in 0..<height {
            for x in 0..<width {
                let value = sample(x: x, y: y, channel: channel)
                if value.isFinite { low = min(low, value); high = max(high, value) }
            }
        }
        return low <= high ? low...high : nil
    }

    /// True when both images have the same shape and identical bytes.
    package func hasSamePixels(as other: PixelImage) -> Bool {
        width == other.width && height == other.height && channels == other.channels
            && format == other.format && memcmp(data, other.data, byteCount) == 0
    }

    package var shapeDescription: String { "\(width)x\(height)x\(channels) \(format)" }
}
