import Foundation
import MatteboxCore
import MatteboxISOBMFF
import Testing

@testable import MatteboxHEIF

/// Broken and hostile files: each gives a clear error, never a crash, a hang
/// or a huge allocation.
@Suite struct HostileFileTests {
    /// A small but complete file: primary, thumbnail, EXIF, XMP, disparity, mattes.
    static let file: [UInt8] = {
        var photo = TestPhotos.portrait()
        photo.primary = photo.primary  // 256x192
        return try! HEIFWriter.build(photo, options: HEIFWriteOptions(quality: 50, preset: "ultrafast", thumbnailSize: 64))
    }()

    private func read(_ bytes: [UInt8]) throws { _ = try HEIFReader.readPhoto(bytes) }

    /// The byte offset of the first box of this type (searching the raw bytes).
    private func offset(of type: String, in bytes: [UInt8], after start: Int = 0) -> Int {
        let code = Array(type.utf8)
        for i in max(4, start)..<(bytes.count - 4) where Array(bytes[i..<i + 4]) == code { return i - 4 }
        Issue.record("no \(type) box")
        return 0
    }

    private func patch32(_ bytes: inout [UInt8], at offset: Int, _ value: UInt32) {
        for i in 0..<4 { bytes[offset + i] = UInt8((value >> (24 - 8 * UInt32(i))) & 0xFF) }
    }

    /// A damaged matte costs only itself: the rest of the photo reads, and a note names it.
    @Test func aCorruptAuxiliaryImageIsLeftOutWithANote() throws {
        let container = try HEIFFile(bytes: Self.file)
        let intact = try HEIFReader.readPhoto(Self.file)
        let hair = try #require(intact.metadata.codedOrigins[.hairMatte]?.item)
        let extent = try #require(container.items[hair]?.extents.first)
        var bytes = Self.file
        for i in extent { bytes[i] = 0xFF }  // NAL lengths and payload alike
        let photo = try HEIFReader.readPhoto(bytes)
        #expect(photo.auxiliary[.hairMatte] == nil)
        #expect(Set(photo.auxiliary.keys) == Set(intact.auxiliary.keys).subtracting([.hairMatte]))
        #expect(photo.primary.hasSamePixels(as: intact.primary))
        let note = try #require(photo.metadata.notes[HEIFReader.damagedNote])
        #expect(note.contains("hairMatte (item \(hair))"), "\(note)")
    }

    @Test func theIntactFileReads() throws {
        let photo = try HEIFReader.readPhoto(Self.file)
        #expect(photo.primary.width == 256)
    }

    @Test func everyTruncationIsAnError() throws {
        var failures = 0
        for length in stride(from: 0, to: Self.file.count, by: max(1, Self.file.count / 150)) {
            do {
                try read(Array(Self.file.prefix(length)))
                Issue.record("a file cut to \(length) of \(Self.file.count) bytes was read")
            } catch let error as HEIFError {
                failures += 1
                #expect(!error.description.isEmpty)
            }
        }
        #expect(failures > 100)
        let cut = Array(Self.file.prefix(Self.file.count - 10))
        let error = #expect(throws: HEIFError.self) { try read(cut) }
        #expect(error?.description.contains("truncated file?") == true)
    }

    @Test func aBoxSizePastItsParentIsAnError() throws {
        var bytes = Self.file
        let ispe = offset(of: "ispe", in: bytes)
        patch32(&bytes, at: ispe, 0x7FFF_FFF0)
        let error = #expect(throws: HEIFError.self) { try read(bytes) }
        #expect(error?.description.contains("box 'ispe'") == true)
        #expect(error?.description.contains("size 2147483632") == true)
    }

    @Test func aBoxSizeSmallerThanItsHeaderIsAnError() throws {
        var bytes = Self.file
        patch32(&bytes, at: offset(of: "iinf", in: bytes), 3)
        let error = #expect(throws: HEIFError.self) { try read(bytes) }
        #expect(error?.description.contains("smaller than its header") == true)
    }

    @Test func absurdDimensionsAreRefusedBeforeDecoding() throws {
        var bytes = Self.file
        let ispe = offset(of: "ispe", in: bytes)
        patch32(&bytes, at: ispe + 12, 100_000)  // width
        patch32(&bytes, at: ispe + 16, 100_000)  // height
        let error = #expect(throws: HEIFError.self) { try read(bytes) }
        #expect(error?.description.contains("claims 100000x100000 pixels") == true)
    }

    @Test func aHugeEntryCountIsAnErrorNotAnAllocation() throws {
        var bytes = Self.file
        let iloc = offset(of: "iloc", in: bytes)
        // iloc v1: header 8, version/flags 4, sizes 2, then the u16 item count.
        bytes[iloc + 14] = 0xFF
        bytes[iloc + 15] = 0xFF
        let error = #expect(throws: HEIFError.self) { try read(bytes) }
        #expect(error?.description.contains("65535 'iloc' entries") == true)
    }

    @Test func dataPastTheEndIsAnError() throws {
        var bytes = Self.file
        let iloc = offset(of: "iloc", in: bytes)
        // First entry: id 2, method 2, dref 2, extent count 2, then offset 4 and length 4.
        patch32(&bytes, at: iloc + 16 + 8 + 4, 0x0FFF_FFFF)
        let error = #expect(throws: HEIFError.self) { try read(bytes) }
        #expect(error?.description.contains("past the end") == true)
    }

    @Test func aGridThatContainsItselfIsAnError() throws {
        var builder = HEIFBuilder()
        let grid = try builder.addItem(type: "grid", hidden: false, data: [0, 0, 0, 0, 0, 64, 0, 64])
        builder.associate(grid, property: ByteWriter.fullBox("ispe") { $0.u32(64); $0.u32(64) }, essential: false)
        builder.addReference("dimg", from: grid, to: [grid])
        let error = #expect(throws: HEIFError.self) { try read(try builder.serialize()) }
        #expect(error?.description.contains("not a coded image") == true)
    }

    @Test func anImageThatIsItsOwnAuxiliaryIsAnError() throws {
        let container = try HEIFFile(bytes: Self.file)
        var builder = HEIFBuilder()
        let primary = try builder.addItem(type: "hvc1", hidden: false, data: try container.data(of: container.primaryID))
        for (property, essential) in container.properties(of: container.primaryID) {
            builder.associate(primary, property: property.box, essential: essential)
        }
        builder.addReference("auxl", from: primary, to: [primary])
        let error = #expect(throws: HEIFError.self) { try read(try builder.serialize()) }
        #expect(error?.description.contains("auxiliary image of itself") == true)
    }

    @Test func aFileThatIsNotHEIFIsAnError() throws {
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16] + Array(repeating: 0, count: 64)
        #expect(throws: HEIFError.self) { try read(jpeg) }
        #expect(!HEIFFile.looksLikeHEIF(jpeg))
        #expect(HEIFFile.looksLikeHEIF(Array(Self.file.prefix(64))))
    }
}
