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

    /// What Mattebox writes reads back as it was, byte for byte the standard's layout.
    @Test func writtenMetadataReadsBackTheSame() throws {
        let metadata = try GainMapMetadata(bytes: Self.block(), leadingVersion: true)
        #expect(try GainMapMetadata(bytes: metadata.encoded(leadingVersion: true), leadingVersion: true) == metadata)
        #expect(metadata.encoded(leadingVersion: false).count == Self.block().count - 1, "the standard's layout, field for field")
        let written = GainMapMetadata(baseHeadroom: 0, alternateHeadroom: 1.8, channels: [
            .init(gainMapMin: 0, gainMapMax: 1.8, gamma: 0.665, baseOffset: 1e-5, alternateOffset: -1e-5)])
        let read = try GainMapMetadata(bytes: written.encoded(leadingVersion: false), leadingVersion: false)
        #expect(abs(read.alternateHeadroom - 1.8) < 1e-9 && abs(read.channels[0].gamma - 0.665) < 1e-9)
        #expect(abs(read.channels[0].alternateOffset + 1e-5) < 1e-12 && read.useBaseColourSpace)
    }
}

/// Ultra HDR's hdrgm XMP: written fields read back, one value or one per colour channel (an
/// `rdf:Seq`, as Adobe's specification allows); an HDR base said in ISO 21496-1's form; a list of
/// two and a missing maximum are refused, naming the field.
struct UltraHDRXMPTests {
    @Test func theGainMapsFieldsReadBack() throws {
        let metadata = GainMapMetadata(baseHeadroom: 0, alternateHeadroom: 2, channels: [
            .init(gainMapMin: -0.5, gainMapMax: 2, gamma: 1.25, baseOffset: 0.015625, alternateOffset: 0.015625)])
        let read = try #require(try UltraHDRXMP.mapping(in: XMPPacket(UltraHDRXMP.gainMapPacket(metadata)))?.metadata)
        #expect(read == metadata)
    }

    @Test func aMappingPerChannelReadsBackAsOne() throws {
        let metadata = GainMapMetadata(isMultichannel: true, baseHeadroom: 0, alternateHeadroom: 2.5, channels: [
            .init(gainMapMin: -0.5, gainMapMax: 2.5, gamma: 1, baseOffset: 0.015625, alternateOffset: 0.015625),
            .init(gainMapMin: 0, gainMapMax: 2, gamma: 1, baseOffset: 0.015625, alternateOffset: 0.015625),
            .init(gainMapMin: -1, gainMapMax: 1.5, gamma: 0.5, baseOffset: 0.015625, alternateOffset: 0.015625),
        ])
        let packet = try XMPPacket(UltraHDRXMP.gainMapPacket(metadata))
        #expect(packet.values(.hdrGainMap("GainMapMin")) == ["-0.5", "0", "-1"], "\(String(decoding: packet.data, as: UTF8.self))")
        #expect(packet.values(.hdrGainMap("HDRCapacityMax")) == ["2.5"])
        let read = try #require(try UltraHDRXMP.mapping(in: packet)?.metadata)
        #expect(read == metadata)

        // Lightroom's form: element syntax, the offsets one value for all three channels.
        let text = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0" hdrgm:HDRCapacityMax="3">\
            <hdrgm:GainMapMax><rdf:Seq><rdf:li>3</rdf:li><rdf:li>2.8</rdf:li><rdf:li>2.6</rdf:li></rdf:Seq></hdrgm:GainMapMax>\
            <hdrgm:OffsetSDR>0.01</hdrgm:OffsetSDR></rdf:Description></rdf:RDF></x:xmpmeta>
            """
        let lightroom = try #require(try UltraHDRXMP.mapping(in: XMPPacket(Data(text.utf8)))?.metadata)
        #expect(lightroom.isMultichannel && lightroom.channels.map(\.gainMapMax) == [3, 2.8, 2.6])
        #expect(lightroom.channels.allSatisfy { $0.baseOffset == 0.01 && $0.gainMapMin == 0 && $0.gamma == 1 })
    }

    /// hdrgm states log2 of HDR over SDR even from an HDR base; ISO 21496-1 states log2 of the
    /// alternate (SDR) over the base (HDR): the headrooms and offsets trade places, the range is
    /// negated, and the samples are to be turned. Checked on Skia's formula for an HDR base
    /// (`D = (B + offsetHDR) x 2^(L x (W - 1)) - offsetSDR`, W = 0 on an SDR display).
    @Test func anHDRBaseIsSaidInISOsForm() throws {
        let text = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0" hdrgm:BaseRenditionIsHDR="True" \
            hdrgm:GainMapMin="0.25" hdrgm:GainMapMax="2" hdrgm:Gamma="0.8" hdrgm:OffsetSDR="0.01" hdrgm:OffsetHDR="0.02" \
            hdrgm:HDRCapacityMin="0" hdrgm:HDRCapacityMax="2"/></rdf:RDF></x:xmpmeta>
            """
        let mapping = try #require(try UltraHDRXMP.mapping(in: XMPPacket(Data(text.utf8))))
        let iso = mapping.metadata, channel = iso.channels[0]
        #expect(mapping.samplesTurned && iso.baseHeadroom == 2 && iso.alternateHeadroom == 0)
        #expect(channel.gainMapMin == -2 && channel.gainMapMax == -0.25 && channel.gamma == 0.8)
        #expect(channel.baseOffset == 0.02 && channel.alternateOffset == 0.01)
        #expect(!UltraHDRXMP.canState(iso), "hdrgm cannot state it for the turned samples")
        for v in [0.0, 0.3, 0.7, 1.0] {
            let hdrBase = 0.6
            let stated = 0.25 + (2 - 0.25) * pow(v, 1 / 0.8)
            let skia = (hdrBase + 0.02) * pow(2, -stated) - 0.01
            let u = pow(1 - pow(v, 1 / 0.8), 0.8)
            let isoLog = channel.gainMapMin + (channel.gainMapMax - channel.gainMapMin) * pow(u, 1 / channel.gamma)
            let viaISO = (hdrBase + channel.baseOffset) * pow(2, isoLog) - channel.alternateOffset
            #expect(abs(skia - viaISO) < 1e-9, "sample \(v): \(skia) against \(viaISO)")
        }
    }

    @Test func whatCannotBeReadIsRefused() {
        func message(_ fields: String, elements: String = "") -> String {
            let text = """
                <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
                <rdf:Description xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0" \(fields)>\(elements)</rdf:Description>\
                </rdf:RDF></x:xmpmeta>
                """
            do { return "\(String(describing: try UltraHDRXMP.mapping(in: XMPPacket(Data(text.utf8)))))" } catch { return "\(error)" }
        }
        #expect(message(#"hdrgm:GainMapMax="2""#).contains("no hdrgm:HDRCapacityMax"))
        #expect(message(#"hdrgm:HDRCapacityMax="2""#).contains("no hdrgm:GainMapMax"))
        #expect(message(#"hdrgm:GainMapMax="2 2 2" hdrgm:HDRCapacityMax="2""#).contains("hdrgm:GainMapMax is \"2 2 2\", not a number"))
        #expect(message(#"hdrgm:HDRCapacityMax="2""#, elements: "<hdrgm:GainMapMax><rdf:Seq><rdf:li>2</rdf:li><rdf:li>3</rdf:li></rdf:Seq></hdrgm:GainMapMax>")
            .contains("hdrgm:GainMapMax lists 2 values, not 1 or 3"))
        #expect(message(#"hdrgm:GainMapMax="2" hdrgm:HDRCapacityMax="2" hdrgm:Gamma="0""#).contains("gamma 0"))
    }

    /// The primary's packet lists itself and the gain map; a Motion Photo's movie stays in the
    /// directory, last (readers find it from the file's end); any other item cannot be joined.
    @Test func thePrimaryListsTheGainMap() throws {
        let described = try UltraHDRXMP.describingPrimary(XMPPacket(toolkit: "test"), gainMapLength: 1234)
        #expect(described.value(.hdrGainMap("Version")) == "1.0")
        #expect(described.directory.map { $0["Semantic"] } == ["Primary", "GainMap"] && described.directory[1]["Length"] == "1234")
        let stripped = try XMPPacket(UltraHDRXMP.withoutDescription(described.data))
        #expect(stripped.value(.hdrGainMap("Version")) == nil && stripped.directory.isEmpty)

        var motion = XMPPacket(toolkit: "test")
        motion.setDirectory(
            [["Semantic": "Primary", "Mime": "image/jpeg", "Padding": "0"], ["Semantic": "MotionPhoto", "Mime": "video/mp4", "Length": "9"]],
            order: ["Semantic", "Mime", "Length", "Padding"])
        let both = try UltraHDRXMP.describingPrimary(motion, gainMapLength: 55)
        #expect(both.directory.map { $0["Semantic"] } == ["Primary", "GainMap", "MotionPhoto"])
        #expect(both.directory[0]["Padding"] == "0" && both.directory[1]["Length"] == "55" && both.directory[2]["Length"] == "9")
        let movieOnly = try XMPPacket(UltraHDRXMP.withoutDescription(both.data))
        #expect(movieOnly.value(.hdrGainMap("Version")) == nil)
        #expect(movieOnly.directory.map { $0["Semantic"] } == ["Primary", "MotionPhoto"] && movieOnly.directory[1]["Length"] == "9")

        var depth = XMPPacket(toolkit: "test")
        depth.setDirectory([["Semantic": "Primary"], ["Semantic": "Depth", "Length": "9"]], order: ["Semantic", "Length"])
        #expect(throws: (any Error).self) { try UltraHDRXMP.describingPrimary(depth, gainMapLength: 1) }
    }

    /// MPF's index as written is read back by the reader: the primary and the gain map after it.
    @Test func theMPFIndexReadsBack() throws {
        let segment = MPFIndex.segment(primaryLength: 5000, following: [(size: 300, offset: 4900)])
        let jpeg: [UInt8] = [0xFF, 0xD8] + segment + [UInt8](repeating: 0, count: 5300 - 2 - segment.count)
        let index = try #require(try MPFIndex.read(from: jpeg))
        #expect(index.entries.map(\.size) == [5000, 300])
        #expect(index.entries[1].fileOffset == 2 + 8 + 4900, "offsets count from the index's header, after MPF\\0")
        #expect(index.entries[0].typeDescription == "baseline primary")
    }
}
