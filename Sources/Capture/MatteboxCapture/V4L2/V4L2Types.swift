import CV4L2
import Foundation

/// What QUERYCAP says about a node: who drives it and whether it captures video.
package struct DeviceCapability: Sendable, Codable, Equatable {
    package var driver: String
    package var card: String
    package var busInfo: String
    /// The node's own capabilities (device_caps when the driver reports them).
    package var capabilities: UInt32

    package var capturesVideo: Bool { capabilities & UInt32(V4L2_CAP_VIDEO_CAPTURE) != 0 }
    package var streams: Bool { capabilities & UInt32(V4L2_CAP_STREAMING) != 0 }
}

/// One pixel format a device offers (ENUM_FMT).
package struct FormatDescription: Sendable, Codable, Equatable {
    package var fourcc: FourCC
    package var description: String
    package var compressed: Bool
}

/// A frame size a format offers (ENUM_FRAMESIZES; stepwise ranges are listed by their corners).
package struct FrameSize: Sendable, Codable, Hashable, Comparable {
    package var width: Int
    package var height: Int

    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    package var pixels: Int { width * height }
    package static func < (a: FrameSize, b: FrameSize) -> Bool { (a.pixels, a.width) < (b.pixels, b.width) }
    package var description: String { "\(width)x\(height)" }

    /// "1280x960" (as `description` writes it).
    package init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0 else { return nil }
        self.init(width: width, height: height)
    }
}

/// Seconds per frame as V4L2 states it (numerator/denominator).
package struct FrameInterval: Sendable, Codable, Hashable {
    package var numerator: UInt32
    package var denominator: UInt32

    package init(numerator: UInt32, denominator: UInt32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    package init(framesPerSecond: Double) {
        numerator = 1000
        denominator = UInt32((framesPerSecond * 1000).rounded())
    }

    package var seconds: Double { denominator == 0 ? 0 : Double(numerator) / Double(denominator) }
    package var framesPerSecond: Double { numerator == 0 ? 0 : Double(denominator) / Double(numerator) }
}

/// The format a stream actually runs at, as the driver adjusted it (G_FMT/S_FMT).
package struct StreamFormat: Sendable, Equatable {
    package var fourcc: FourCC
    package var width: Int
    package var height: Int
    package var bytesPerLine: Int
    package var sizeImage: Int

    package var size: FrameSize { FrameSize(width: width, height: height) }

    init(_ format: v4l2_format) {
        let pix = format.fmt.pix
        fourcc = FourCC(pix.pixelformat)
        width = Int(pix.width)
        height = Int(pix.height)
        bytesPerLine = Int(pix.bytesperline)
        sizeImage = Int(pix.sizeimage)
    }

    /// Back to the kernel structure, for converters.
    var v4l2: v4l2_format {
        var format = v4l2_format()
        format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE.rawValue
        format.fmt.pix.pixelformat = fourcc.rawValue
        format.fmt.pix.width = UInt32(width)
        format.fmt.pix.height = UInt32(height)
        format.fmt.pix.bytesperline = UInt32(bytesPerLine)
        format.fmt.pix.sizeimage = UInt32(sizeImage)
        format.fmt.pix.field = V4L2_FIELD_NONE.rawValue
        return format
    }
}

/// A fixed-size C char array (a tuple in Swift) as a String.
func cString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}

/// Writes `text` into a fixed-size C char array, cut to fit and NUL-terminated (what a driver does).
func setCString<T>(_ text: String, into field: inout T) {
    withUnsafeMutableBytes(of: &field) { bytes in
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
        for (index, byte) in text.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
    }
}
