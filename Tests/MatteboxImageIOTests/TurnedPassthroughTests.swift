import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxISOBMFF
import MatteboxImageIO
import MatteboxImageOps
import MatteboxRuntime
import MatteboxTestSupport
import Testing

/// A stage that turns a HEIF photo upright (the Orientation plugin) leaves its
/// pixels as they were coded, only turned: the writer copies the coded primary
/// and states the turn as irot/imir, and new mattes are stored in the same
/// frame, so the file shows exactly what the turned pixels show.
@Suite struct TurnedPassthroughTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("turned-passthrough") }

    /// A HEIF written by Mattebox, stored turned: EXIF orientation `orientation`.
    func storedTurned(_ orientation: Int) throws -> URL {
        var photo = Photo(primary: TestImages.pattern(width: 64, height: 48))
        photo.metadata.orientation = ExifOrientation(orientation)!
        photo.setAuxiliary(TestImages.matte(width: 32, height: 24), for: .portraitMatte)
        let url = folder.appendingPathComponent("turned-\(orientation).heic")
        try AtomicFile.write(try ImageEncoder.encode(photo, as: .heic), to: url)
        return url
    }

    @Test(arguments: 2...8)
    func theTurnedPrimaryIsCopiedAndShowsTheSame(orientation: Int) throws {
        let input = try storedTurned(orientation)
        var photo = try ImageDecoder.decodePhoto(at: input)
        let shownBefore = try photo.displayedUpright()
        let libheifBefore = try TestImages.shownByLibheif(input, scratch: folder)
        #expect(shownBefore.primary.width == libheifBefore.width && shownBefore.primary.height == libheifBefore.height)
        #expect(TestImages.meanDifference(shownBefore.primary, libheifBefore) < 1, "Mattebox reads the turn as libheif applies it")
        try UprightStage.run(&photo)
        // A new matte, made on the upright pixels: left half set.
        let matte = PixelImage(width: photo.primary.width, height: photo.primary.height, channels: 1, format: .uint8)
        for y in 0..<matte.height {
            for x in 0..<matte.width / 2 { matte.data.storeBytes(of: 255, toByteOffset: y * matte.width + x, as: UInt8.self) }
        }
        photo.setAuxiliary(matte, for: .hairMatte)
        let output = try ImageEncoder.encode(photo, as: .heic)

        let before = try HEIFFile(bytes: [UInt8](try Data(contentsOf: input)))
        let after = try HEIFFile(bytes: [UInt8](output))
        #expect(try after.data(of: after.primaryID) == before.data(of: before.primaryID), "the primary is copied")
        let written = folder.appendingPathComponent("written-\(orientation).heic")
        try output.write(to: written)
        let again = try ImageDecoder.decodePhoto(at: written)
        #expect(again.metadata.orientation.rawValue == orientation, "stored as coded, with the turn stated")
        let shownAfter = try again.displayedUpright()
        #expect(shownAfter.primary.hasSamePixels(as: shownBefore.primary), "shows exactly what it showed")
        #expect(try TestImages.shownByLibheif(written, scratch: folder).hasSamePixels(as: libheifBefore), "libheif shows exactly what it showed")
        // The new matte lines up with what is shown: left half on, right half off.
        let hair = try #require(shownAfter.auxiliary[.hairMatte])
        #expect(hair.width == shownAfter.primary.width && hair.height == shownAfter.primary.height)
        #expect(hair.sample(x: hair.width / 4, y: hair.height / 2) > 200)
        #expect(hair.sample(x: 3 * hair.width / 4, y: hair.height / 2) < 50)
        // The file's own portrait matte was turned with the primary and is copied too.
        #expect(shownAfter.auxiliary[.portraitMatte]?.hasSamePixels(as: shownBefore.auxiliary[.portraitMatte]!) == true)
    }
}
