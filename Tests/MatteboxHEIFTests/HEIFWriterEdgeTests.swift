import Foundation
import MatteboxCore
import MatteboxTestSupport
import Testing

@testable import MatteboxHEIF

/// The HEIF writer on the inputs a plugin or a hostile file can hand it: the
/// smallest picture, qualities out of range, a float primary and depth that is
/// all NaN. Each is written and read back whole, or refused with a message
/// that names the problem; none crashes.
@Suite struct HEIFWriterEdgeTests {
    let options = HEIFWriteOptions(quality: 80, preset: "ultrafast")

    @Test func aOnePixelPhotoIsWrittenAndReadBack() throws {
        let photo = Photo(primary: TestImages.pattern(width: 1, height: 1))
        let read = try HEIFReader.readPhoto(try HEIFWriter.build(photo, options: options))
        #expect(read.primary.width == 1 && read.primary.height == 1)
    }

    func refusal(_ photo: Photo, _ options: HEIFWriteOptions) -> String {
        do {
            _ = try HEIFWriter.build(photo, options: options)
            return "written"
        } catch {
            return "\(error)"
        }
    }

    @Test func qualitiesOutOfRangeAreRefusedNamingTheRange() {
        let photo = Photo(primary: TestImages.pattern(width: 64, height: 48))
        for quality in [0, 101, -5] {
            let said = refusal(photo, HEIFWriteOptions(quality: quality, preset: "ultrafast"))
            #expect(said.contains("quality \(quality) is outside 1...100"), "\(quality): \(said)")
        }
    }

    @Test func aFloatPrimaryIsRefusedWithWhatToDo() {
        let said = refusal(Photo(primary: PixelImage(width: 16, height: 16, channels: 3, format: .float32)), options)
        #expect(said.contains("float primary") && said.contains("8 or 16 bits"), "\(said)")
    }

    @Test func depthThatIsAllNaNIsRefusedNotWrittenAsGarbage() {
        var photo = Photo(primary: TestImages.pattern(width: 64, height: 48))
        let depth = PixelImage(width: 32, height: 24, channels: 1, format: .float32)
        let samples = depth.data.assumingMemoryBound(to: Float.self)
        for i in 0..<(32 * 24) { samples[i] = .nan }
        photo.auxiliary[.depth] = depth
        let said = refusal(photo, options)
        #expect(said.contains("depth has no valid values"), "\(said)")
    }

    /// Issue 57 (12): an auxiliary image the encoder refuses (a damaged Lens Blur JPEG's GImage decoded as
    /// 40000x1) is left out and named; the photo and its other images are written.
    @Test func anAuxiliaryImageTheEncoderRefusesIsLeftOutAndNamed() throws {
        var photo = Photo(primary: TestImages.pattern(width: 64, height: 48))
        photo.setAuxiliary(PixelImage(width: 40000, height: 1, channels: 3, format: .uint8), for: ImageRole("com.google.gimage"))
        photo.setAuxiliary(TestImages.matte(width: 64, height: 48), for: .portraitMatte)
        let (data, notKept) = try HEIFWriter.encodeReporting(photo, options: options)
        #expect(notKept.contains { $0.contains("com.google.gimage") && $0.contains("40000x1") }, "\(notKept)")
        let read = try HEIFReader.readPhoto([UInt8](data))
        #expect(read.auxiliary[.portraitMatte] != nil && read.auxiliary[ImageRole("com.google.gimage")] == nil)
    }
}
