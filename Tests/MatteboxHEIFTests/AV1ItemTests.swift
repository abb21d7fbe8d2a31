import Foundation
import MatteboxCore
import MatteboxISOBMFF
import MatteboxTestSupport
import Testing

@testable import MatteboxHEIF

/// The codec seam: the same writer lays out an AVIF (AV1 items) with every
/// auxiliary image, depth's range and the metadata an iPhone-style HEIC has,
/// libheif opens it and lists them, and Mattebox reads it back.
@Suite struct AV1ItemTests {
    let written = TestPhotos.portrait(orientation: 6)
    let bytes: [UInt8]

    init() throws {
        var options = HEIFWriteOptions(quality: 92, preset: "ultrafast")
        options.codec = AV1Codec()
        bytes = try HEIFWriter.build(written, options: options)
    }

    @Test func everyImageIsAnAV1ItemInAnAVIFBrandedFile() throws {
        let container = try HEIFFile(bytes: bytes)
        #expect(container.majorBrand == "avif")
        #expect(container.compatibleBrands.contains("mif1") && container.compatibleBrands.contains("miaf"))
        let coded = container.items.values.filter { $0.type == "av01" || $0.type == "hvc1" }
        #expect(!coded.isEmpty && coded.allSatisfy { $0.type == "av01" }, "\(coded.map(\.type))")
        // primary, disparity, three mattes and the vendor image (the primary fits the thumbnail box: no thumbnail)
        #expect(coded.count == 6)
        #expect(container.property("av1C", of: container.primaryID) != nil)
    }

    @Test func libheifListsTheAuxiliaryImagesAndTheDepthRange() throws {
        let text = try Libheif.describe(bytes)
        #expect(text.contains("primary 192 256"), "libheif applies the orientation: \(text)")
        #expect(text.components(separatedBy: "\naux ").count - 1 == 5, "\(text)")
        #expect(text.contains("urn:com:apple:photo:2019:aux:semantichairmatte"), "\(text)")
        #expect(text.contains("depth-representation"), "\(text)")
    }

    @Test func matteboxReadsItBackWithinTheCodecsLoss() throws {
        let read = try HEIFReader.readPhoto(bytes)
        #expect(Set(read.auxiliary.keys) == Set(written.auxiliary.keys))
        #expect(read.metadata.orientation == ExifOrientation(6)!)
        #expect(read.metadata.xmp == written.metadata.xmp)
        let depth = try #require(read.metadata.auxiliaryInfo[.disparity]?.depth)
        #expect(abs(depth.disparityMinimum! - 0.5) < 1e-3 && abs(depth.disparityMaximum! - 4.0) < 1e-3)
        #expect(TestPhotos.psnr(written.primary, read.primary) > 30)
        #expect(TestPhotos.psnr(written.auxiliary[.hairMatte]!, read.auxiliary[.hairMatte]!) > 30)
    }

    @Test func onlyItemsOfTheOutputsCodecAreCopied() throws {
        // An AVIF read and written again as AVIF keeps its coded primary byte for byte ...
        let read = try HEIFReader.readPhoto(bytes)
        var avif = HEIFWriteOptions(preset: "ultrafast")
        avif.codec = AV1Codec()
        let again = try HEIFFile(bytes: try HEIFWriter.build(read, options: avif))
        let original = try HEIFFile(bytes: bytes)
        #expect(try again.data(of: again.primaryID) == original.data(of: original.primaryID))
        // ... and written as HEIC encodes it with HEVC: no AV1 item ends up in a HEIC.
        let heic = try HEIFFile(bytes: try HEIFWriter.build(read, options: HEIFWriteOptions(preset: "ultrafast")))
        #expect(heic.majorBrand == "heic")
        #expect(!heic.items.values.contains { $0.type == "av01" })
        #expect(heic.items[heic.primaryID]?.type == "hvc1")
    }
}
