import Foundation
import MatteboxRuntime

/// ISO 21496-1 gain map metadata: how a gain map turns the SDR (base) image into the HDR
/// (alternate) one, or back. One model for every container that carries it: HEIF and AVIF keep
/// it as the payload of a `tmap` derived image item (after a version byte), Ultra HDR JPEG in an
/// APP2 segment (without it). Values are stored as fractions; headrooms, the gain map's range and
/// the offsets in log2 (stops), linear light.
package struct GainMapMetadata: Sendable, Codable, Equatable {
    /// One colour channel's mapping (a single one serves all three unless `isMultichannel`).
    package struct Channel: Sendable, Codable, Equatable {
        /// log2 of the smallest and largest boost the map's values 0 and 1 stand for.
        package var gainMapMin: Double
        package var gainMapMax: Double
        /// The map's values are stored raised to 1/gamma.
        package var gamma: Double
        /// Added to base and alternate linear values before the ratio is taken (keeps blacks finite).
        package var baseOffset: Double
        package var alternateOffset: Double

        package init(gainMapMin: Double, gainMapMax: Double, gamma: Double, baseOffset: Double, alternateOffset: Double) {
            (self.gainMapMin, self.gainMapMax, self.gamma) = (gainMapMin, gainMapMax, gamma)
            (self.baseOffset, self.alternateOffset) = (baseOffset, alternateOffset)
        }
    }

    package var minimumVersion: Int
    package var writerVersion: Int
    package var isMultichannel: Bool
    /// The gain map is applied in the base image's colour space (else the alternate's).
    package var useBaseColourSpace: Bool
    /// log2 of the headroom the base and the alternate image are meant for (SDR: 0).
    package var baseHeadroom: Double
    package var alternateHeadroom: Double
    package var channels: [Channel]

    /// The most the map can brighten, as a factor of SDR white.
    package var alternateHeadroomFactor: Double { pow(2, alternateHeadroom) }

    /// What starts the APP2 segment Ultra HDR JPEGs keep the metadata in (the primary's holds
    /// only the two versions, the gain map's all of it).
    package static let jpegSegmentHeader = Array("urn:iso:std:iso:ts:21496:-1\0".utf8)

    package init(
        isMultichannel: Bool = false, useBaseColourSpace: Bool = true, baseHeadroom: Double, alternateHeadroom: Double, channels: [Channel]
    ) {
        (minimumVersion, writerVersion) = (0, 0)
        self.isMultichannel = isMultichannel
        self.useBaseColourSpace = useBaseColourSpace
        self.baseHeadroom = baseHeadroom
        self.alternateHeadroom = alternateHeadroom
        self.channels = channels
    }

    /// The block as ISO 21496-1 lays it out (big-endian fractions, no common denominator);
    /// `leadingVersion` for a `tmap` item's payload.
    package func encoded(leadingVersion: Bool) -> [UInt8] {
        var out: [UInt8] = leadingVersion ? [0] : []
        func u16(_ value: Int) { out += [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func u32(_ value: UInt32) { out += [24, 16, 8, 0].map { UInt8(value >> UInt32($0) & 0xFF) } }
        func unsigned(_ value: Double) {
            let (numerator, denominator) = Self.fraction(max(value, 0), limit: Double(UInt32.max))
            u32(UInt32(numerator))
            u32(denominator)
        }
        func signed(_ value: Double) {
            let (numerator, denominator) = Self.fraction(value, limit: Double(Int32.max))
            u32(UInt32(bitPattern: Int32(numerator)))
            u32(denominator)
        }
        u16(minimumVersion)
        u16(writerVersion)
        out.append((isMultichannel ? 0x80 : 0) | (useBaseColourSpace ? 0x40 : 0))
        unsigned(baseHeadroom)
        unsigned(alternateHeadroom)
        for channel in channels.prefix(isMultichannel ? 3 : 1) {
            signed(channel.gainMapMin)
            signed(channel.gainMapMax)
            unsigned(channel.gamma)
            signed(channel.baseOffset)
            signed(channel.alternateOffset)
        }
        return out
    }

    /// The metadata of an Ultra HDR primary: the two versions alone, which say the file follows
    /// ISO 21496-1 (its gain map image holds the rest).
    package static let versionsOnly: [UInt8] = [0, 0, 0, 0]

    /// `value` as numerator / denominator with the finest power-of-ten denominator (up to 10^9)
    /// whose numerator stays within `limit`.
    private static func fraction(_ value: Double, limit: Double) -> (Int64, UInt32) {
        var denominator: UInt32 = 1_000_000_000
        while denominator > 1, abs(value) * Double(denominator) > limit { denominator /= 10 }
        let numerator = (value * Double(denominator)).rounded()
        return (Int64(min(max(numerator, -limit), limit)), denominator)
    }

    /// Reads the metadata; `leadingVersion` for a `tmap` item's payload (a version byte, 0, first).
    /// Throws a message naming the field for a truncated or malformed block, a version it cannot
    /// read, or a fraction with a zero denominator.
    package init(bytes: [UInt8], leadingVersion: Bool) throws {
        var reader = FieldReader(bytes: bytes)
        if leadingVersion {
            let version = try reader.byte("version")
            guard version == 0 else { throw MatteboxError("ISO 21496-1 gain map metadata: version \(version), only 0 is known") }
        }
        minimumVersion = Int(try reader.uint16("minimum_version"))
        guard minimumVersion == 0 else {
            throw MatteboxError("ISO 21496-1 gain map metadata: minimum_version \(minimumVersion), only 0 is known")
        }
        writerVersion = Int(try reader.uint16("writer_version"))
        let flags = try reader.byte("flags")
        isMultichannel = flags & 0x80 != 0
        useBaseColourSpace = flags & 0x40 != 0
        baseHeadroom = try reader.unsignedFraction("base_hdr_headroom")
        alternateHeadroom = try reader.unsignedFraction("alternate_hdr_headroom")
        channels = try (0..<(isMultichannel ? 3 : 1)).map { index in
            let channel = "channel \(index + 1) "
            return Channel(
                gainMapMin: try reader.signedFraction(channel + "gain_map_min"),
                gainMapMax: try reader.signedFraction(channel + "gain_map_max"),
                gamma: try reader.unsignedFraction(channel + "gamma"),
                baseOffset: try reader.signedFraction(channel + "base_offset"),
                alternateOffset: try reader.signedFraction(channel + "alternate_offset"))
        }
        for channel in channels where channel.gamma <= 0 {
            throw MatteboxError("ISO 21496-1 gain map metadata: gamma \(channel.gamma) (it must be above 0)")
        }
    }

    /// Big-endian fields, each read by name so a short block says which field it lacks.
    private struct FieldReader {
        let bytes: [UInt8]
        var offset = 0

        mutating func take(_ count: Int, _ field: String) throws -> ArraySlice<UInt8> {
            guard bytes.count - offset >= count else {
                throw MatteboxError("ISO 21496-1 gain map metadata: truncated at \(field) (\(bytes.count) bytes)")
            }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }

        mutating func byte(_ field: String) throws -> UInt8 { try take(1, field).first! }

        mutating func uint16(_ field: String) throws -> UInt16 {
            try take(2, field).reduce(0) { $0 << 8 | UInt16($1) }
        }

        mutating func uint32(_ field: String) throws -> UInt32 {
            try take(4, field).reduce(0) { $0 << 8 | UInt32($1) }
        }

        mutating func unsignedFraction(_ field: String) throws -> Double {
            let numerator = try uint32(field + " numerator"), denominator = try uint32(field + " denominator")
            guard denominator != 0 else { throw MatteboxError("ISO 21496-1 gain map metadata: \(field) has denominator 0") }
            return Double(numerator) / Double(denominator)
        }

        mutating func signedFraction(_ field: String) throws -> Double {
            let numerator = Int32(bitPattern: try uint32(field + " numerator")), denominator = try uint32(field + " denominator")
            guard denominator != 0 else { throw MatteboxError("ISO 21496-1 gain map metadata: \(field) has denominator 0") }
            return Double(numerator) / Double(denominator)
        }
    }
}
