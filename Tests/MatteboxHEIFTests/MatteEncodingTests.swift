import Foundation
import MatteboxCore
@testable import MatteboxHEIF
import MatteboxTestSupport
import Testing

/// Mattes are encoded with a cheaper x265 preset than the photo (issue 45): a
/// real iPhone portrait matte written and read back stays within one level of
/// its pixels on average, as the photo's own preset kept it.
@Suite struct MatteEncodingTests {
    @Test func aRealMatteStaysWithinOneLevel() throws {
        guard let shared = TestEnvironment.shared else {
            print("../shared is not beside this clone; the matte encoding is not checked on a real matte")
            return
        }
        let source = try HEIFReader.readPhoto(at: shared.appendingPathComponent("heic-samples/openize__iphone_iOS18_tmap+MatteMaps.heic"))
        let matte = try #require(source.auxiliary[.portraitMatte])
        var photo = Photo(primary: PixelImage(width: 64, height: 48, channels: 3, format: .uint8))
        photo.auxiliary[.portraitMatte] = matte
        for quality in [50, 75, 90] {
            let written = try HEIFReader.readPhoto([UInt8](try HEIFWriter.encode(photo, options: HEIFWriteOptions(quality: quality, preset: "slow"))))
            let back = try #require(written.auxiliary[.portraitMatte])
            var total = 0
            let (a, b) = (matte.data.assumingMemoryBound(to: UInt8.self), back.data.assumingMemoryBound(to: UInt8.self))
            for y in 0..<matte.height {
                for x in 0..<matte.width { total += abs(Int(a[y * matte.bytesPerRow + x]) - Int(b[y * back.bytesPerRow + x])) }
            }
            let mean = Double(total) / Double(matte.width * matte.height)
            #expect(mean < 1, "quality \(quality): mean error \(mean) levels")
        }
    }
}
