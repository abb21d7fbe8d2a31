/// An item property from `ipco`: its whole box (so it can be copied into
/// another file byte for byte) and what Mattebox reads from it.
package struct HEIFProperty {
    package enum Value: Equatable {
        /// `ispe`: the coded size, before any transform.
        case imageSize(width: Int, height: Int)
        /// `irot`: counter-clockwise quarter turns.
        case rotation(quarterTurns: Int)
        /// `imir`: 0 flips top and bottom, 1 flips left and right.
        case mirror(axis: Int)
        /// `auxC`: the auxiliary type URN and its subtype bytes.
        case auxiliaryType(urn: String, subtype: [UInt8])
        /// `pixi`: bits per channel.
        case bitsPerChannel([Int])
        /// `hvcC` or `av1C`: what decoding needs to know up front (chroma format 0 is grey).
        case codingConfiguration(chromaFormat: Int, lumaBitDepth: Int)
        /// `colr` with an ICC profile (`prof` or `rICC`).
        case iccProfile([UInt8])
        case other
    }

    package let type: String
    package let box: [UInt8]
    package let value: Value

    package static func parse(_ box: Box, in bytes: [UInt8]) throws -> HEIFProperty {
        let whole = Array(bytes[box.range])
        return HEIFProperty(type: box.type, box: whole, value: try parseValue(box, bytes))
    }

    private static func parseValue(_ box: Box, _ bytes: [UInt8]) throws -> Value {
        switch box.type {
        case "ispe":
            var (reader, _, _) = try box.fullBoxReader(bytes)
            let width = Int(try reader.u32("ispe width")), height = Int(try reader.u32("ispe height"))
            return .imageSize(width: width, height: height)
        case "irot":
            var reader = ByteReader(bytes, range: box.payload)
            return .rotation(quarterTurns: Int(try reader.u8("irot angle") & 0x3))
        case "imir":
            var reader = ByteReader(bytes, range: box.payload)
            return .mirror(axis: Int(try reader.u8("imir axis") & 0x1))
        case "auxC":
            var (reader, _, _) = try box.fullBoxReader(bytes)
            let urn = try reader.cString("auxC type")
            return .auxiliaryType(urn: urn, subtype: Array(reader.rest()))
        case "pixi":
            var (reader, _, _) = try box.fullBoxReader(bytes)
            let count = Int(try reader.u8("pixi channel count"))
            return .bitsPerChannel(try (0..<count).map { _ in Int(try reader.u8("pixi bits")) })
        case "hvcC":
            var reader = ByteReader(bytes, range: box.payload)
            try reader.skip(16, "hvcC header")
            let chroma = Int(try reader.u8("hvcC chroma format") & 0x3)
            let luma = Int(try reader.u8("hvcC luma bit depth") & 0x7) + 8
            return .codingConfiguration(chromaFormat: chroma, lumaBitDepth: luma)
        case "av1C":
            // AV1CodecConfigurationRecord: marker+version, profile+level, then
            // tier, high_bitdepth, twelve_bit, monochrome, subsampling x, y (AV1-ISOBMFF 2.3.3).
            var reader = ByteReader(bytes, range: box.payload)
            try reader.skip(2, "av1C header")
            let flags = try reader.u8("av1C flags")
            let bits = flags & 0x40 == 0 ? 8 : flags & 0x20 == 0 ? 10 : 12
            let mono = flags & 0x10 != 0
            let chroma = mono ? 0 : flags & 0x0C == 0x0C ? 1 : flags & 0x08 != 0 ? 2 : 3
            return .codingConfiguration(chromaFormat: chroma, lumaBitDepth: bits)
        case "colr":
            var reader = ByteReader(bytes, range: box.payload)
            let kind = try reader.fourCC("colr type")
            if kind == "prof" || kind == "rICC" { return .iccProfile(Array(reader.rest())) }
            return .other
        default:
            return .other
        }
    }
}
