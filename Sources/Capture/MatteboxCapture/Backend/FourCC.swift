/// A frame's pixel format by its four-character code (`MJPG`, `YUYV`), printable as its four
/// letters: the way V4L2, libcamera (DRM codes) and GStreamer's raw caps all name formats, so the
/// session and every backend speak it. What the session needs to know of a format is its `kind`.
package struct FourCC: Hashable, Sendable, Codable, CustomStringConvertible {
    /// What a frame of this format is, as far as the session and the decoders care.
    package enum Kind: Sendable, Equatable {
        /// A whole JPEG per frame (Motion-JPEG, JPEG): passed on or decoded as a file.
        case jpeg
        /// Packed 4:2:2 luma and chroma, Y0 U Y1 V.
        case yuyv
        /// 8-bit RGB, three bytes a pixel.
        case rgb
        /// A format Mattebox does not decode itself (a backend may convert it).
        case other
    }

    package var rawValue: UInt32

    package init(_ rawValue: UInt32) { self.rawValue = rawValue }

    package init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 4 else { return nil }
        rawValue = bytes.enumerated().reduce(0) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    }

    package static let mjpeg = FourCC("MJPG")!
    package static let jpeg = FourCC("JPEG")!
    package static let yuyv = FourCC("YUYV")!
    package static let rgb24 = FourCC("RGB3")!

    package var kind: Kind {
        switch self {
        case .mjpeg, .jpeg: .jpeg
        case .yuyv: .yuyv
        case .rgb24: .rgb
        default: .other
        }
    }

    package var isCompressed: Bool { kind == .jpeg }

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
