import Foundation
import Testing

@testable import MatteboxMetadata

/// ISO 21496-1 gain map metadata read from bytes laid out as the standard's fields: every field
/// kept, and a damaged block refused with the field it lacks named.
struct GainMapMetadataTests {
    /// A one-channel block: version byte (for a `tmap` item), minimum and writer version, flags,
    /// the two headrooms, then the channel's five fractions (min, max, gamma, two offsets).
    static func block(version: UInt8 = 0, flags: UInt8 = 0x40, gammaDenominator: UInt32 = 1, channels: Int = 1) -> [UInt8] {
        func u32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
        func s32(_ value: Int32) -> [UInt8] { u32(UInt32(bitPattern: value)) }
        var bytes: [UInt8] = [version, 0, 0, 0, 3, flags]
        bytes += u32(0) + u32(1) + u32(3) + u32(2)  // base 0 stops, alternate 1.5 stops
        for _ in 0..<channels {
            bytes += s32(-1) + u32(4) + u32(3) + u32(2) + u32(1) + u32(gammaDenominator) + s32(1) + u32(64) + s32(-1) + u32(64)
        }
        return bytes
    }

    @Test func everyFieldIsRead() throws {
        let metadata = try GainMapMetadata(bytes: Self.block(), leadingVersion: true)
        #expect(metadata.writerVersion == 3 && metadata.useBaseColourSpace && !metadata.isMultichannel)
        #expect(metadata.baseHeadroom == 0 && metadata.alternateHeadroom == 1.5)
        #expect(abs(metadata.alternateHeadroomFactor - 2.828) < 0.001)
        let expected = GainMapMetadata.Channel(gainMapMin: -0.25, gainMapMax: 1.5, gamma: 1, baseOffset: 0.015625, alternateOffset: -0.015625)
        #expect(metadata.channels == [expected])
        // The same block without the version byte, as Ultra HDR's APP2 carries it.
        #expect(try GainMapMetadata(bytes: Array(Self.block().dropFirst()), leadingVersion: false) == metadata)
        let three = try GainMapMetadata(bytes: Self.block(flags: 0xC0, channels: 3), leadingVersion: true)
        #expect(three.isMultichannel && three.channels.count == 3)
    }

    @Test func aDamagedBlockIsRefusedWithTheFieldNamed() {
        func message(_ bytes: [UInt8]) -> String {
            do {
                _ = try GainMapMetadata(bytes: bytes, leadingVersion: true)
                return "read"
            } catch { return "\(error)" }
        }
        #expect(message(Array(Self.block().prefix(26))).contains("truncated at channel 1 gain_map_min"))
        #expect(message(Self.block(flags: 0xC0)).contains("truncated at channel 2"), "three channels flagged, one stored")
        #expect(message(Self.block(gammaDenominator: 0)).contains("channel 1 gamma has denominator 0"))
        #expect(message(Self.block(version: 1)).contains("version 1, only 0 is known"))
        #expect(message([]).contains("truncated at version"))
    }
}
