import MatteboxCore
import Testing

@Suite struct ExifBlockTests {
    @Test func emptyBlockGainsAnOrientationTag() throws {
        var block = ExifBlock.empty()
        #expect(block.orientation == nil)
        block.setOrientation(6)
        #expect(block.orientation == 6)
        block.setOrientation(3)
        #expect(block.orientation == 3)
        // Re-reading the bytes gives the same answer.
        #expect(ExifBlock(block.bytes)?.orientation == 3)
    }

    @Test func acceptsTheExifPrefixOfJPEGSegments() {
        let prefixed = Array("Exif\0\0".utf8) + ExifBlock.empty().bytes
        #expect(ExifBlock(prefixed) != nil)
    }

    @Test func bigEndianBlocksAreRead() throws {
        // "MM", 42, IFD at 8: one entry, Orientation SHORT 1 = 8.
        let bytes: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0]
        let block = try #require(ExifBlock(bytes))
        #expect(block.orientation == 8)
    }

    @Test func garbageAndTruncatedBlocksAreRefused() {
        #expect(ExifBlock([]) == nil)
        #expect(ExifBlock(Array("not exif at all".utf8)) == nil)
        #expect(ExifBlock([0x49, 0x49, 0x2A, 0, 8, 0, 0, 0]) == nil)  // IFD offset past the end
    }

    @Test func hostileCountsAndOffsetsReadAsAbsent() throws {
        // IFD0 claims 60000 entries.
        let huge: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 0x60, 0xEA] + [UInt8](repeating: 0, count: 20)
        #expect(ExifBlock(huge) == nil)
        // One ASCII entry (Make) whose value offset points far outside the block.
        var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 1, 0]
        bytes += [0x0F, 0x01, 2, 0, 0xFF, 0xFF, 0, 0, 0xF0, 0xFF, 0xFF, 0x7F]
        bytes += [0, 0, 0, 0]
        let block = try #require(ExifBlock(bytes))
        #expect(block.make == nil)
        #expect(!block.hasLocation)
    }

    /// Apple's documented rule for the HDR headroom, each of its four branches, and the floor at 1x.
    @Test func appleHDRHeadroomFollowsApplesRule() {
        func stops(_ a: Double, _ b: Double?) -> Double { AppleHDRHeadroom(makerNote33: a, makerNote48: b).stops }
        #expect(abs(stops(0.843, 0.008) - (-20 * 0.008 + 1.8)) < 1e-12)
        #expect(abs(stops(0.5, 2) - (-0.101 * 2 + 1.601)) < 1e-12)
        #expect(abs(stops(1.01, 0.005) - (-70 * 0.005 + 3)) < 1e-12)
        #expect(abs(stops(1.01, 2.902) - (-0.303 * 2.902 + 2.303)) < 1e-12)
        #expect(stops(0.9, nil) == 1.8, "tag 48 absent is taken as 0")
        #expect(AppleHDRHeadroom(makerNote33: 2, makerNote48: 20).headroom == 1, "never below SDR white")
    }
}
