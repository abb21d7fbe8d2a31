import MatteboxCore
import MatteboxISOBMFF

/// The HEVC depth representation information SEI (payload type 177) as iPhones
/// put it in a depth item's `auxC` subtype: a 4-byte total length, a 4-byte NAL
/// length, then one prefix SEI NAL unit. libheif reads the range from here.
enum DepthRepresentationSEI {
    static let payloadType: UInt8 = 177

    static func encode(_ representation: DepthRepresentation) -> [UInt8] {
        var bits = BitWriter()
        let values: [Double?] = [
            representation.nearestDepth, representation.farthestDepth,
            representation.disparityMinimum, representation.disparityMaximum,
        ]
        for value in values { bits.write(value == nil ? 0 : 1, count: 1) }
        bits.writeUnsignedExpGolomb(representation.kind.rawValue)
        if values[2] != nil || values[3] != nil { bits.writeUnsignedExpGolomb(0) }  // disparity_ref_view_id
        for value in values.compactMap({ $0 }) { writeElement(value, to: &bits) }
        if representation.kind == .nonUniformDisparity {
            bits.writeUnsignedExpGolomb(0)  // one interval, linear model
        }
        bits.alignPayload()
        let payload = bits.bytes
        let nal: [UInt8] = [0x4E, 0x01, payloadType, UInt8(payload.count)] + payload
        var writer = ByteWriter()
        writer.u32(UInt32(nal.count + 4))
        writer.u32(UInt32(nal.count))
        writer.append(nal)
        return writer.bytes
    }

    /// The representation in an `auxC` subtype, or nil when it holds none.
    static func decode(_ subtype: [UInt8]) throws -> DepthRepresentation? {
        guard subtype.count >= 8 else { return nil }
        var reader = ByteReader(subtype)
        _ = try reader.u32("SEI total length")
        let nalLength = Int(try reader.u32("SEI NAL length"))
        var nal = ByteReader(subtype, range: reader.position..<reader.position + min(nalLength, reader.remaining))
        let header = try nal.u16("SEI NAL header")
        guard (header >> 9) & 0x3F == 39 else { return nil }  // PREFIX_SEI
        var type = 0, size = 0
        var byte = try nal.u8("SEI payload type")
        while byte == 0xFF { type += 255; byte = try nal.u8("SEI payload type") }
        type += Int(byte)
        byte = try nal.u8("SEI payload size")
        while byte == 0xFF { size += 255; byte = try nal.u8("SEI payload size") }
        size += Int(byte)
        guard type == Int(payloadType) else { return nil }
        var bits = BitReader(Array(try nal.take(min(size, nal.remaining), "SEI payload")))
        let flags = try (0..<4).map { _ in try bits.read(1) == 1 }
        guard let kind = DepthRepresentation.Kind(rawValue: try bits.readUnsignedExpGolomb()) else {
            throw HEIFError.malformed("depth representation type out of range")
        }
        if flags[2] || flags[3] { _ = try bits.readUnsignedExpGolomb() }
        var values: [Double?] = []
        for present in flags { values.append(present ? try readElement(&bits) : nil) }
        return DepthRepresentation(
            kind: kind, disparityMinimum: values[2], disparityMaximum: values[3],
            nearestDepth: values[0], farthestDepth: values[1])
    }

    /// sign u(1), exponent u(7), mantissa length - 1 u(5), mantissa: 16-bit
    /// mantissas as Apple writes them.
    private static func writeElement(_ value: Double, to bits: inout BitWriter) {
        let magnitude = abs(value)
        var exponent = 0, mantissa = 0
        if magnitude > 0, magnitude.isFinite {
            exponent = Int(magnitude.exponent) + 31
            mantissa = Int(((magnitude / pow2(exponent - 31) - 1) * 65536).rounded())
            if mantissa == 65536 { exponent += 1; mantissa = 0 }
            if exponent < 1 { exponent = 0; mantissa = Int((magnitude / pow2(-46)).rounded()) & 0xFFFF }
            exponent = min(exponent, 126)
        }
        bits.write(value < 0 ? 1 : 0, count: 1)
        bits.write(exponent, count: 7)
        bits.write(15, count: 5)
        bits.write(mantissa, count: 16)
    }

    private static func readElement(_ bits: inout BitReader) throws -> Double {
        let sign = try bits.read(1)
        let exponent = try bits.read(7)
        let length = try bits.read(5) + 1
        let mantissa = Double(try bits.read(length))
        let magnitude = exponent > 0
            ? pow2(exponent - 31) * (1 + mantissa / pow2(length))
            : pow2(-(30 + length)) * mantissa
        return sign == 1 ? -magnitude : magnitude
    }

    private static func pow2(_ exponent: Int) -> Double { Double(sign: .plus, exponent: exponent, significand: 1) }
}

/// Bits, most significant first.
private struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var used = 8

    mutating func write(_ value: Int, count: Int) {
        for shift in stride(from: count - 1, through: 0, by: -1) {
            if used == 8 { bytes.append(0); used = 0 }
            if (value >> shift) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(0x80 >> used) }
            used += 1
        }
    }

    /// SEI payloads end byte-aligned with a 1 bit and then 0 bits (when not already aligned).
    mutating func alignPayload() {
        guard used != 8 else { return }
        write(1, count: 1)
        if used != 8 { write(0, count: 8 - used) }
    }

    mutating func writeUnsignedExpGolomb(_ value: Int) {
        let coded = value + 1
        let length = Int.bitWidth - coded.leadingZeroBitCount
        write(0, count: length - 1)
        write(coded, count: length)
    }
}

/// A bounded bit cursor for SEI payloads.
private struct BitReader {
    let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func read(_ count: Int) throws -> Int {
        guard count <= 32, position + count <= bytes.count * 8 else {
            throw HEIFError.malformed("depth representation SEI ends early")
        }
        var value = 0
        for _ in 0..<count {
            value = value << 1 | Int((bytes[position / 8] >> (7 - position % 8)) & 1)
            position += 1
        }
        return value
    }

    mutating func readUnsignedExpGolomb() throws -> Int {
        var zeros = 0
        while try read(1) == 0 {
            zeros += 1
            guard zeros < 31 else { throw HEIFError.malformed("depth representation SEI has a runaway code") }
        }
        return (1 << zeros) - 1 + (try read(zeros))
    }
}
