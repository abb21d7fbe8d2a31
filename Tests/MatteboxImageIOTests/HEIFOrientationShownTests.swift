import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxRuntime
import MatteboxTestSupport
import Testing

/// Every EXIF orientation, written into a HEIF as irot/imir, shows in libheif
/// what `vips autorot` shows of a PNG tagged with that orientation: two
/// independent readers agree on all eight, not only the three iPhones write.
@Suite struct HEIFOrientationShownTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("heif-orientation-shown") }

    @Test(arguments: 1...8)
    func libheifShowsWhatAutorotShows(orientation: Int) throws {
        let pattern = TestImages.pattern(width: 64, height: 48)
        let tagged = folder.appendingPathComponent("tagged-\(orientation).png")
        try TestImages.writePhoto(to: tagged, orientation: orientation, image: pattern)
        let expected = try TestImages.autorotated(tagged, scratch: folder)

        var photo = Photo(primary: pattern)
        photo.metadata.orientation = ExifOrientation(orientation)!
        let heic = folder.appendingPathComponent("turned-\(orientation).heic")
        try AtomicFile.write(try ImageEncoder.encode(photo, as: .heic, quality: 95), to: heic)
        let shown = try TestImages.shownByLibheif(heic, scratch: folder)

        #expect(shown.width == expected.width && shown.height == expected.height, "\(shown.width)x\(shown.height)")
        // Lossy HEVC moves samples a little; a wrong turn moves them by tens.
        let difference = TestImages.meanDifference(shown, expected)
        #expect(difference < 6, "mean difference \(difference)")
    }
}
