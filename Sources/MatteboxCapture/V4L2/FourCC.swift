import CV4L2

/// A V4L2 pixel format code (`MJPG`, `YUYV`), printable as its four letters.
public struct FourCC: Hashable, Sendable, Codable, CustomStringConvertible {
    public var rawValue: UInt32

    public init(_ rawValue: UInt32) { self.rawValue = rawValue }

    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 4 else { return nil }
        rawValue = bytes.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    public static let mjpeg = FourCC(MBX_PIX_FMT_MJPEG)
    public static let jpeg = FourCC(MBX_PIX_FMT_JPEG)
    public static let yuyv = FourCC(MBX_PIX_FMT_YUYV)
    public static let rgb24 = FourCC(MBX_PIX_FMT_RGB24)

    public var isCompressed: Bool { self == .mjpeg || self == .jpeg }

    public var description: String {
        String(decoding: (0..<4).map { UInt8((rawValue >> (8 * $0)) & 0xFF) }, as: UTF8.self)
    }

    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let code = FourCC(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a fourcc: \(text)"))
        }
        self = code
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
