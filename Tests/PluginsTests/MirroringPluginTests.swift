import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxImageOps
import MatteboxRuntime
import MatteboxTestSupport
import Testing

@Suite struct MirroringPluginTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("mirroring") }

    private func photo(position: CameraPosition, orientation: Int = 1) -> Photo {
        var photo = Photo(primary: TestImages.pattern())
        photo.metadata.capture.position = position
        photo.metadata.orientation = ExifOrientation(orientation)!
        photo.auxiliary[.portraitMatte] = TestImages.matte(width: 24, height: 16)
        return photo
    }

    private func run(_ policy: String, apply: String = "pixels", on photo: inout Photo) throws {
        _ = try BuiltPlugins.runner("""
            stages:
              - plugin: org.mattebox.mirroring
                params: { policy: \(policy), apply: \(apply) }
            """).run(&photo)
    }

    @Test func naturalPolicyLeavesUnmirroredPhotosAlone() throws {
        var front = photo(position: .front)
        try run("natural", on: &front)
        #expect(front.primary.hasSamePixels(as: TestImages.pattern()))
        #expect(!front.metadata.capture.isMirrored)
    }

    @Test func naturalPolicyUnmirrorsAMirroredCapture() throws {
        var selfie = photo(position: .front)
        selfie.primary = try ImageGeometry.apply(.flipHorizontal, to: selfie.primary)
        selfie.metadata.capture.isMirrored = true
        try run("natural", on: &selfie)
        #expect(selfie.primary.hasSamePixels(as: TestImages.pattern()))
        #expect(!selfie.metadata.capture.isMirrored)
    }

    @Test func autoMirrorsFrontCamerasOnlyAndTheMatteFollows() throws {
        var front = photo(position: .front), back = photo(position: .back)
        try run("auto", on: &front)
        try run("auto", on: &back)
        #expect(front.primary.hasSamePixels(as: try ImageGeometry.apply(.flipHorizontal, to: TestImages.pattern())))
        #expect(front.auxiliary[.portraitMatte]!.hasSamePixels(
            as: try ImageGeometry.apply(.flipHorizontal, to: TestImages.matte(width: 24, height: 16))))
        #expect(front.metadata.capture.isMirrored)
        #expect(back.primary.hasSamePixels(as: TestImages.pattern()))
    }

    /// Whatever the stored orientation, the displayed photo (vips autorot of the
    /// written file) must be the left-right mirror of what it displayed before,
    /// both when the flip is baked into pixels and when it is an EXIF tag.
    @Test(arguments: [(1, "pixels"), (6, "pixels"), (3, "exif"), (6, "exif"), (8, "exif"), (5, "pixels")])
    func mirroredPolicyMirrorsWhatIsDisplayed(orientation: Int, apply: String) throws {
        var subject = photo(position: .back, orientation: orientation)
        let before = folder.appendingPathComponent("before-\(orientation)-\(apply).png")
        try AtomicFile.write(try ImageEncoder.encode(subject, as: .png), to: before)
        try run("mirrored", apply: apply, on: &subject)
        if apply == "exif" {
            #expect(subject.primary.hasSamePixels(as: TestImages.pattern()))
            #expect(subject.metadata.orientation.isMirrored != ExifOrientation(orientation)!.isMirrored)
        }
        let after = folder.appendingPathComponent("after-\(orientation)-\(apply).png")
        try AtomicFile.write(try ImageEncoder.encode(subject, as: .png), to: after)
        let shownBefore = try TestImages.autorotated(before, scratch: folder)
        let shownAfter = try TestImages.autorotated(after, scratch: folder)
        #expect(shownAfter.hasSamePixels(as: try ImageGeometry.apply(.flipHorizontal, to: shownBefore)))
    }
}
