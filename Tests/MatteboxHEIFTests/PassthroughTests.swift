import Foundation
import MatteboxCore
import MatteboxISOBMFF
import MatteboxTestSupport
import Testing

@testable import MatteboxHEIF

/// Images a HEIF input holds whose pixels did not change are copied into the
/// output as they are coded, not encoded again; a change anywhere in an
/// image's pixels or shape makes the writer encode it.
struct PassthroughTests {
    /// The coded bytes of an image item: an hvc1's data, or a grid's and each tile's.
    func codedBytes(_ id: UInt32, in container: HEIFFile) throws -> [[UInt8]] {
        let tiles = container.items[id]?.type == "grid" ? container.targets(of: id, by: "dimg") : []
        return try ([id] + tiles).map { try container.data(of: $0) }
    }

    func rewrite(_ bytes: [UInt8], options: HEIFWriteOptions = HEIFWriteOptions(), change: (inout Photo) -> Void = { _ in })
        throws -> (input: Photo, output: [UInt8])
    {
        var photo = try HEIFReader.readPhoto(bytes)
        let input = photo
        change(&photo)
        return (input, try HEIFWriter.build(photo, options: options))
    }

    /// A single-item HEIF with a disparity image, written by Mattebox.
    func singleItemFile() throws -> [UInt8] {
        try HEIFWriter.build(TestPhotos.portrait(orientation: 6), options: HEIFWriteOptions())
    }

    @Test func anUnchangedSingleItemPrimaryAndItsAuxiliaryImagesAreCopiedByteForByte() throws {
        let original = try singleItemFile()
        let (input, output) = try rewrite(original)
        let before = try HEIFFile(bytes: original), after = try HEIFFile(bytes: output)
        #expect(try codedBytes(after.primaryID, in: after) == codedBytes(before.primaryID, in: before))
        for (role, _) in input.auxiliary {
            let (old, new) = (try item(role, in: before), try item(role, in: after))
            #expect(try after.data(of: new) == before.data(of: old), "\(role)")
        }
        let again = try HEIFReader.readPhoto(output)
        #expect(again.primary.hasSamePixels(as: input.primary))
        #expect(again.metadata.orientation == input.metadata.orientation)
        #expect(Set(again.auxiliary.keys) == Set(input.auxiliary.keys))
        #expect(abs(output.count - original.count) < 512, "\(output.count) vs \(original.count) bytes")
    }

    @Test func changingOnePixelMakesTheWriterEncodeThatImage() throws {
        let original = try singleItemFile()
        let (input, output) = try rewrite(original) { photo in
            photo.primary.data.storeBytes(of: 255 - photo.primary.data.load(as: UInt8.self), as: UInt8.self)
        }
        let before = try HEIFFile(bytes: original), after = try HEIFFile(bytes: output)
        #expect(try codedBytes(after.primaryID, in: after) != codedBytes(before.primaryID, in: before))
        // The mattes did not change and are still copied.
        #expect(try after.data(of: item(.portraitMatte, in: after)) == before.data(of: item(.portraitMatte, in: before)))
        let again = try HEIFReader.readPhoto(output)
        #expect(!again.primary.hasSamePixels(as: input.primary))
    }

    @Test func reencodeEncodesEverything() throws {
        let original = try singleItemFile()
        // A second encode of the decoded image cannot reproduce the first encode's bytes.
        let (_, output) = try rewrite(original, options: HEIFWriteOptions(passthrough: false))
        let before = try HEIFFile(bytes: original), after = try HEIFFile(bytes: output)
        #expect(try codedBytes(after.primaryID, in: after) != codedBytes(before.primaryID, in: before))
    }

    @Test func aReplacedAuxiliaryImageIsEncodedAndTheRestCopied() throws {
        let original = try singleItemFile()
        let (_, output) = try rewrite(original) { photo in
            photo.setAuxiliary(TestImages.matte(width: 64, height: 48), for: .hairMatte)
        }
        let before = try HEIFFile(bytes: original), after = try HEIFFile(bytes: output)
        #expect(try codedBytes(after.primaryID, in: after) == codedBytes(before.primaryID, in: before))
        #expect(try after.codedSize(of: item(.hairMatte, in: after))! == (64, 48))
        #expect(try after.data(of: item(.skinMatte, in: after)) == before.data(of: item(.skinMatte, in: before)))
    }

    /// An iPhone's grid primary (48 tiles), gain map and disparity come out as
    /// they went in: libheif decodes the same pixels, and the file is no bigger.
    @Test(.enabled(if: iPhoneSamples != nil, "../shared/heic-samples is not beside this checkout"))
    func anIPhoneGridPrimaryIsCopiedAndDecodesBitIdentical() throws {
        let url = iPhoneSamples!.appendingPathComponent("openize__iphone_portrait_photo.heic")
        let original = [UInt8](try Data(contentsOf: url))
        let (input, output) = try rewrite(original)
        let before = try HEIFFile(bytes: original), after = try HEIFFile(bytes: output)
        #expect(after.items[after.primaryID]?.type == "grid")
        #expect(try codedBytes(after.primaryID, in: after) == codedBytes(before.primaryID, in: before))
        #expect(after.property("colr", of: after.primaryID) != nil, "the ICC profile stays on the grid")
        let again = try HEIFReader.readPhoto(output)
        #expect(again.primary.hasSamePixels(as: input.primary))
        for role in input.auxiliary.keys {
            #expect(again.auxiliary[role]?.hasSamePixels(as: input.auxiliary[role]!) == true, "\(role)")
        }
        #expect(output.count <= original.count, "\(output.count) vs \(original.count) bytes")
    }

    func item(_ role: ImageRole, in container: HEIFFile) throws -> UInt32 {
        let photo = try HEIFReader.readPhoto(container.bytes)
        return try #require(photo.metadata.codedOrigins[role]?.item, "no \(role) item")
    }
}

/// Older iPhones put the ICC profile (`colr`) on the grid's tiles only: it is
/// read from there, copied with an unchanged grid, and written on a
/// re-encoded primary, so colours do not shift.
struct TileColourProfileTests {
    static let icc: [UInt8] = Array("a stand-in ICC profile, carried byte for byte".utf8)

    /// A 128x64 grid of two 64x64 tiles, each tile with a `colr` ICC profile, the grid without.
    static func gridWithProfileOnTiles() throws -> [UInt8] {
        var builder = HEIFBuilder()
        var grid = ByteWriter()
        grid.u8(0)  // version
        grid.u8(0)  // flags: 16-bit sizes
        grid.u8(0)  // rows - 1
        grid.u8(1)  // columns - 1
        grid.u16(128)
        grid.u16(64)
        let gridID = try builder.addItem(type: "grid", hidden: false, data: grid.bytes)  // the first item is the primary
        builder.associate(gridID, property: ByteWriter.fullBox("ispe") { $0.u32(128); $0.u32(64) }, essential: false)
        var tiles: [UInt16] = []
        let colr = ByteWriter.box("colr") { $0.fourCC("prof"); $0.append(icc) }
        for _ in 0..<2 {
            let coded = try HEVCCodec().encode(
                TestPhotos.smooth(width: 64, height: 64), settings: ItemCodecSettings(quality: 50, preset: "ultrafast")
            ).image
            let id = try builder.addItem(type: "hvc1", hidden: true, data: coded.data)
            for (box, essential) in coded.properties { builder.associate(id, property: box, essential: essential) }
            builder.associate(id, property: colr, essential: false)
            tiles.append(id)
        }
        builder.addReference("dimg", from: gridID, to: tiles)
        return try builder.serialize()
    }

    @Test func theProfileOnTheTilesIsReadCopiedAndWritten() throws {
        let file = try Self.gridWithProfileOnTiles()
        var photo = try HEIFReader.readPhoto(file)
        #expect(photo.primary.width == 128 && photo.primary.height == 64)
        #expect(photo.metadata.iccProfile.map([UInt8].init) == Self.icc)

        let copied = try HEIFFile(bytes: try HEIFWriter.build(photo, options: HEIFWriteOptions()))
        #expect(copied.items[copied.primaryID]?.type == "grid")
        #expect(try HEIFReader.readPhoto(copied.bytes).metadata.iccProfile.map([UInt8].init) == Self.icc)

        photo.primary.data.storeBytes(of: 0, as: UInt8.self)  // a changed pixel: the primary is encoded
        let encoded = try HEIFFile(bytes: try HEIFWriter.build(photo, options: HEIFWriteOptions()))
        #expect(encoded.items[encoded.primaryID]?.type == "hvc1")
        #expect(HEIFReader.iccProfile(of: encoded.primaryID, in: encoded).map([UInt8].init) == Self.icc)
    }
}

/// iOS 18 stores an HDR rendition as a `tmap` derived image of the primary and
/// gain map, grouped with the primary as alternatives (`altr`), and a `uri `
/// metadata item: carried over when what they rest on is copied, named as not
/// kept when it is not.
@Suite(.enabled(if: iPhoneSamples != nil, "../shared/heic-samples is not beside this checkout"))
struct CarryOverTests {
    let original: [UInt8] = {
        guard let folder = iPhoneSamples else { return [] }
        return (try? [UInt8](Data(contentsOf: folder.appendingPathComponent("openize__iphone_iOS18_tmap+MatteMaps.heic")))) ?? []
    }()

    func types(_ container: HEIFFile) -> [String: Int] {
        container.itemOrder.reduce(into: [:]) { $0[container.items[$1]!.type, default: 0] += 1 }
    }

    @Test func theToneMapItsGroupAndMetadataAreCarriedWithACopiedPrimary() throws {
        let photo = try HEIFReader.readPhoto(original)
        let (data, notKept) = try HEIFWriter.encodeReporting(photo)
        #expect(notKept.isEmpty, "\(notKept)")
        let before = try HEIFFile(bytes: original), after = try HEIFFile(bytes: [UInt8](data))
        #expect(types(after) == types(before))
        let tmap = try #require(after.itemOrder.first { after.items[$0]?.type == "tmap" })
        #expect(after.targets(of: tmap, by: "dimg").first == after.primaryID)
        #expect(after.entityGroups.map(\.type) == ["altr"])
        #expect(Set(after.entityGroups[0].entities) == [tmap, after.primaryID])
        #expect(after.compatibleBrands.contains("tmap"))
        #expect(abs(data.count - original.count) < 4096, "\(data.count) vs \(original.count) bytes")
    }

    /// Encoded again, the primary and gain map keep their pixels, so the tone map made from them still
    /// holds and goes along with its group; Apple's `uri ` item, which describes the coded primary, does not.
    @Test func reencodingKeepsTheToneMapAndNamesWhatCouldNotBeKept() throws {
        let photo = try HEIFReader.readPhoto(original)
        let (data, notKept) = try HEIFWriter.encodeReporting(photo, options: HEIFWriteOptions(preset: "ultrafast", passthrough: false))
        #expect(!notKept.contains { $0.contains("'tmap' derived image") || $0.contains("'altr' group") }, "\(notKept)")
        #expect(notKept.contains { $0.contains("'uri '") }, "\(notKept)")
        let after = try HEIFFile(bytes: [UInt8](data))
        let tmap = try #require(after.itemOrder.first { after.items[$0]?.type == "tmap" })
        #expect(after.targets(of: tmap, by: "dimg").first == after.primaryID)
        #expect(Set(after.entityGroups.first { $0.type == "altr" }?.entities ?? []) == [tmap, after.primaryID])
        // Made from the primary as shown (HEIF 6.6.1), as the input's was: its upright size, no turn of its own.
        let before = try HEIFFile(bytes: original)
        let inputToneMap = try #require(before.itemOrder.first { before.items[$0]?.type == "tmap" })
        let primary = try #require(after.codedSize(of: after.primaryID))
        #expect(after.codedSize(of: tmap)! == before.codedSize(of: inputToneMap)! && after.codedSize(of: tmap)! == (primary.height, primary.width))
        #expect(after.properties(of: tmap).map(\.property.box) == before.properties(of: inputToneMap).map(\.property.box))
    }

    /// A photo nothing changed (a portrait-mattes run that found no face) is written as its input's own
    /// bytes: its MIAF brands (`miaf`, `MiHE`, `MiPr`, `MiHB`) and layout too, not an equal file laid out anew.
    @Test func anUnchangedPhotoIsItsInputsOwnBytes() throws {
        let input = [UInt8](try Data(contentsOf: iPhoneSamples!.appendingPathComponent("exif-samples__iphone_13_pro_max.HEIC")))
        var photo = try HEIFReader.readPhoto(input)
        let (unchanged, notKept) = try HEIFWriter.encodeReporting(photo)
        #expect(notKept.isEmpty && [UInt8](unchanged) == input, "\(unchanged.count) bytes against \(input.count): \(notKept)")
        // One matte more: the file is built anew, keeping the input's coded images.
        photo.setAuxiliary(PixelImage(width: 64, height: 48, channels: 1, format: .uint8), for: .portraitMatte)
        let changed = try HEIFFile(bytes: [UInt8](try HEIFWriter.encodeReporting(photo).data)), before = try HEIFFile(bytes: input)
        #expect(changed.itemOrder.count == before.itemOrder.count + 2, "the matte and its XMP")
        #expect(try changed.data(of: changed.primaryID) == (try before.data(of: before.primaryID)))
    }

    /// Nor is an input libheif refuses (iOS 18's links to two images, before libheif 1.18) written as it
    /// is: the file built anew, which libheif opens, is.
    @Test func anUnchangedPhotoLibheifRefusesIsBuiltAnew() throws {
        let photo = try HEIFReader.readPhoto(original)
        let data = try HEIFWriter.encodeReporting(photo).data
        #expect([UInt8](data) != original && HEIFWriter.libheifRefusal([UInt8](data)) == nil)
    }
}

/// A file with two top-level images grouped as a stereo pair (`ster`, as Apple
/// spatial photos store them): the right view is read for depth
/// (`org.mattebox.stereo-right`), `inspect` lists both, and a rewrite keeps
/// both images and the group.
struct StereoPairTests {
    static func stereoPair() throws -> [UInt8] {
        var builder = HEIFBuilder()
        var ids: [UInt16] = []
        for shift in [0, 8] {
            let view = TestPhotos.smooth(width: 96, height: 64)
            let pixels = view.data.assumingMemoryBound(to: UInt8.self)
            for y in 0..<64 { for x in 0..<(96 - shift) { for c in 0..<3 { pixels[(y * 96 + x) * 3 + c] = pixels[(y * 96 + x + shift) * 3 + c] } } }
            let coded = try HEVCCodec().encode(view, settings: ItemCodecSettings(quality: 60, preset: "ultrafast")).image
            let id = try builder.addItem(type: "hvc1", hidden: false, data: coded.data)
            for (box, essential) in coded.properties { builder.associate(id, property: box, essential: essential) }
            ids.append(id)
        }
        builder.addEntityGroup("ster", items: ids)
        return try builder.serialize()
    }

    @Test func bothViewsAreReadListedAndKept() throws {
        let file = try Self.stereoPair()
        let photo = try HEIFReader.readPhoto(file)
        let right = try #require(photo.auxiliary[HEIFReader.stereoRightRole])
        #expect(right.width == 96 && right.height == 64)
        #expect(!right.hasSamePixels(as: photo.primary))

        let summary = try HEIFInspector.summarize(HEIFFile(bytes: file), file: "pair.heic")
        #expect(summary.otherImages.count == 1)
        #expect(summary.entityGroups == ["ster: 1, 2"])

        let (data, notKept) = try HEIFWriter.encodeReporting(photo)
        #expect(notKept.isEmpty, "\(notKept)")
        let after = try HEIFFile(bytes: [UInt8](data))
        #expect(after.itemOrder.filter { !after.items[$0]!.isHidden }.count == 2, "two top-level images out")
        #expect(after.references.filter { $0.type == "auxl" }.isEmpty, "the right view is not also an auxiliary image")
        #expect(after.entityGroups.first?.type == "ster")
        let again = try HEIFReader.readPhoto([UInt8](data))
        #expect(again.auxiliary[HEIFReader.stereoRightRole]?.hasSamePixels(as: right) == true)
    }
}
