import Foundation
import MatteboxCore
import MatteboxTestSupport
import Testing

@testable import MatteboxHEIF

/// The primary encoded while the matte stages run: the file is byte for byte
/// the one encoding at the end writes, and an encode that went stale (a stage
/// wrote into the primary after all, or the quality changed) is not used.
@Suite struct PrimaryEncodeAheadTests {
    let options = HEIFWriteOptions(quality: 70, preset: "ultrafast")

    /// A photo with mattes added after the encode began, as the matte stages add them.
    func withMattes(_ photo: Photo) -> Photo {
        var photo = photo
        photo.setAuxiliary(TestPhotos.smooth(width: 48, height: 64).converted(channels: 1, eightBit: true), for: .portraitMatte)
        return photo
    }

    @Test func theFileIsByteForByteTheOneEncodingAtTheEndWrites() throws {
        let photo = Photo(primary: TestPhotos.smooth(width: 96, height: 128))
        let ahead = try #require(PrimaryEncodeAhead(photo, options: options))
        let finished = withMattes(photo)
        var withAhead = options
        withAhead.encodedAhead = ahead
        #expect(try HEIFWriter.build(finished, options: withAhead) == HEIFWriter.build(finished, options: options))
        let settings = try #require(HEIFWriter.primaryEncoding(of: finished, options: options)).1
        #expect(ahead.coded(primary: finished.primary, settings: settings, codec: HEVCCodec()) != nil, "the encode ahead was not taken")
    }

    @Test func pixelsChangedInPlaceAfterTheStartAreEncodedAgain() throws {
        let photo = Photo(primary: TestPhotos.smooth(width: 96, height: 128))
        let ahead = try #require(PrimaryEncodeAhead(photo, options: options))
        // A stage that writes into the primary without declaring it: its pixels, not the old ones, are written.
        let bytes = photo.primary.data.assumingMemoryBound(to: UInt8.self)
        for i in 0..<(photo.primary.byteCount / 2) { bytes[i] = 255 &- bytes[i] }
        var withAhead = options
        withAhead.encodedAhead = ahead
        let written = try HEIFWriter.build(photo, options: withAhead)
        #expect(written == (try HEIFWriter.build(photo, options: options)))
        let read = try HEIFReader.readPhoto(written)
        #expect(TestPhotos.psnr(read.primary, photo.primary) > 30, "the stale pixels were written")
    }

    @Test func aQualityChangedByALaterStageIsHonoured() throws {
        let photo = Photo(primary: TestPhotos.smooth(width: 96, height: 128))
        let ahead = try #require(PrimaryEncodeAhead(photo, options: options))
        var finer = HEIFWriteOptions(quality: 95, preset: "ultrafast")
        let expected = try HEIFWriter.build(photo, options: finer)
        finer.encodedAhead = ahead
        #expect(try HEIFWriter.build(photo, options: finer) == expected)
        #expect(expected != (try HEIFWriter.build(photo, options: options)), "qualities 70 and 95 wrote the same file")
    }

    @Test func anUnchangedHEIFPrimaryIsCopiedSoNothingIsEncodedAhead() throws {
        let file = try HEIFWriter.build(Photo(primary: TestPhotos.smooth(width: 96, height: 128)), options: options)
        let read = try HEIFReader.readPhoto(file)
        #expect(PrimaryEncodeAhead(read, options: options) == nil)
        var reencoding = options
        reencoding.passthrough = false
        #expect(PrimaryEncodeAhead(read, options: reencoding) != nil)
    }
}
