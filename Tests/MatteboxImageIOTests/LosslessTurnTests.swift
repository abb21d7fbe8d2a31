import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxImageIO
import MatteboxRuntime
import MatteboxTestSupport
import Testing

/// A JPEG turned upright by a stage (the Orientation plugin's transforms) and
/// written as JPEG is turned in the DCT domain by libjpeg-turbo: what it
/// shows is what the original showed, without a second lossy encoding; a
/// size that would need trimming is encoded again, with a note.
@Suite struct LosslessTurnTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("lossless-turn") }

    func jpeg(width: Int, height: Int, orientation: Int) throws -> URL {
        let url = folder.appendingPathComponent("o\(orientation)-\(width)x\(height).jpg")
        try AtomicFile.write(try ImageEncoder.encode(TestImages.pattern(width: width, height: height), as: .jpeg), to: url)
        let tagged = TestEnvironment.run(["/usr/bin/exiftool", "-q", "-overwrite_original", "-Make=Canon", "-Orientation#=\(orientation)", url.path])
        #expect(tagged.status == 0, "\(tagged.errors)")
        return url
    }

    /// The largest difference of any sample.
    func largestDifference(_ a: PixelImage, _ b: PixelImage) -> Int {
        precondition(a.byteCount == b.byteCount)
        let x = a.data.assumingMemoryBound(to: UInt8.self), y = b.data.assumingMemoryBound(to: UInt8.self)
        return (0..<a.byteCount).reduce(0) { max($0, abs(Int(x[$1]) - Int(y[$1]))) }
    }

    func written(_ data: Data, _ name: String) throws -> Photo {
        let url = folder.appendingPathComponent(name)
        try data.write(to: url)
        return try ImageDecoder.decodePhoto(at: url)
    }

    @Test(arguments: 1...8)
    func everyOrientationIsTurnedWithoutLoss(orientation: Int) throws {
        let original = try jpeg(width: 64, height: 48, orientation: orientation)
        var photo = try ImageDecoder.decodePhoto(at: original)
        #expect(photo.metadata.orientation.rawValue == orientation)
        let shown = try TestImages.autorotated(original, scratch: folder)
        try UprightStage.run(&photo)
        var notes: [String: String] = [:]
        let lossless = try ImageEncoder.encode(photo, as: .jpeg, quality: 92, heif: HEIFWriteOptions(), notes: &notes)
        #expect(notes.isEmpty, "\(notes)")
        let reencoded = try ImageEncoder.encode(photo, as: .jpeg, quality: 92, heif: HEIFWriteOptions(passthrough: false), notes: &notes)
        let turned = try written(lossless, "lossless-\(orientation).jpg"), encoded = try written(reencoded, "reencoded-\(orientation).jpg")
        #expect(turned.metadata.orientation == .up)
        #expect(turned.primary.width == shown.width && turned.primary.height == shown.height)
        // The DCT-domain turn decodes to the shown pixels but for IDCT rounding;
        // a second encoding at quality 92 moves them much further.
        let lost = largestDifference(turned.primary, shown), reencodingLost = largestDifference(encoded.primary, shown)
        #expect(lost <= 2, "lossless turn differs by \(lost)")
        #expect(lost < reencodingLost, "\(lost) vs \(reencodingLost)")
        #expect(TestEnvironment.run(["/usr/bin/exiftool", "-s3", "-Make", folder.appendingPathComponent("lossless-\(orientation).jpg").path]).output
            .contains("Canon"))
    }

    @Test func aSizeThatWouldNeedTrimmingIsEncodedAgainWithANote() throws {
        let original = try jpeg(width: 60, height: 44, orientation: 6)
        var photo = try ImageDecoder.decodePhoto(at: original)
        let shown = try TestImages.autorotated(original, scratch: folder)
        try UprightStage.run(&photo)
        var notes: [String: String] = [:]
        let data = try ImageEncoder.encode(photo, as: .jpeg, quality: 92, heif: HEIFWriteOptions(), notes: &notes)
        #expect(notes["losslessTurn"]?.contains("not done losslessly") == true, "\(notes)")
        let turned = try written(data, "trimmed.jpg")
        #expect(turned.primary.width == shown.width && turned.primary.height == shown.height)
        #expect(TestImages.meanDifference(turned.primary, shown) < 3, "shows what vips autorot shows of the original")
    }
}
