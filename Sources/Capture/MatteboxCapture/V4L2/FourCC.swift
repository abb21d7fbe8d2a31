import CV4L2

/// A V4L2 pixel format code (`MJPG`, `YUYV`), printable as its four letters.
package struct FourCC: Hashable, Sendable, Codable, CustomStringConvertible {
    package var rawValue: UInt32

    package init(_ rawValue: UInt32) { self.rawValue = rawValue }

    package init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 4 else { return nil }
        rawValue = bytes.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    package static let mjpeg = FourCC(MBX_PIX_FMT_MJPEG)
    package static let jpeg = FourCC(MBX_PIX_FMT_JPEG)
    package static let yuyv = FourCC(MBX_PIX_FMT_YUYV)
    package static let rgb24 = FourCC(MBX_PIX_FMT_RGB24)

    package var isCompressed: Bool { self == .mjpeg || self == .jpeg }

    package var description: String {
        String(decoding: (0..<4).map { UInt8((rawValue >> (8 * $0)) & 0xFF) }, as: UTF8.self)
    }

    package init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let code = FourCC(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a fourcc: \(text)"))
        }
        self = code
    }

    package func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
