import Foundation
import MatteboxCore
import MatteboxISOBMFF
import MatteboxTestSupport
import Testing

@testable import MatteboxHEIF

/// iOS 18 writes its HDR twice: Apple's gain map with the headroom in the maker note, and an
/// ISO 21496-1 `tmap` item over the primary and that gain map. `inspect` reads both; on the
/// iPhone 16 Pro sample the two headrooms, read independently, agree.
@Suite(.enabled(if: iPhoneSamples != nil, "../shared/heic-samples is missing"))
struct ToneMapTests {
    @Test func theISOToneMapOfAnIOS18PhotoIsReadAndAgreesWithTheMakerNote() throws {
        let summary = try HEIFInspector.inspect(at: iPhoneSamples!.appendingPathComponent("openize__iphone_iOS18_tmap+MatteMaps.heic"))
        let toneMap = try #require(summary.toneMap)
        let gainMap = try #require(summary.auxiliary.first { $0.type == "urn:com:apple:photo:2020:aux:hdrgainmap" })
        #expect(toneMap.inputs == [summary.primary.item, gainMap.image.item], "the tmap joins the primary and the gain map")
        let metadata = try #require(toneMap.metadata, "\(toneMap.problem ?? "")")
        let makerNote = try #require(summary.exif?.appleHDRHeadroom)
        #expect(metadata.baseHeadroom == 0, "the primary is SDR")
        #expect(abs(metadata.alternateHeadroom - makerNote.stops) < 0.02, "tmap \(metadata.alternateHeadroom) stops, maker note \(makerNote.stops)")
        #expect(metadata.channels.count == 1 && abs(metadata.channels[0].gainMapMax - metadata.alternateHeadroom) < 1e-6)
    }

    /// A tone map made here for a photo stored turned (irot 3, as most iPhone photos are) is made from
    /// the primary and gain map as shown (HEIF 6.6.1: a derived image's inputs are output images), so it
    /// has the upright size and no turn of its own, as iOS 18 writes one; turned again, an HDR reader
    /// would show the HDR rendition on its side.
    @Test func aToneMapMadeHereHasThePhotosUprightSizeAndNoTurn() throws {
        let photo = try HEIFReader.readPhoto(at: iPhoneSamples!.appendingPathComponent("exif-samples__iphone_13_pro_max.HEIC"))
        let written = try HEIFFile(bytes: [UInt8](try HEIFWriter.encode(photo, options: HEIFWriteOptions(preset: "ultrafast", passthrough: false))))
        let toneMap = try #require(written.itemOrder.first { written.items[$0]?.type == "tmap" })
        let primary = try #require(written.codedSize(of: written.primaryID))
        #expect(written.property("irot", of: written.primaryID)?.value == .rotation(quarterTurns: 3))
        #expect(written.codedSize(of: toneMap)! == (primary.height, primary.width), "\(written.codedSize(of: toneMap)!) against the primary's \(primary)")
        #expect(!written.properties(of: toneMap).contains { ["irot", "imir", "clap"].contains($0.property.type) })
    }

    @Test func aPhotoWithoutOneHasNoToneMap() throws {
        let summary = try HEIFInspector.inspect(at: iPhoneSamples!.appendingPathComponent("pillow_heif__pug.heic"))
        #expect(summary.toneMap == nil)
    }
}
