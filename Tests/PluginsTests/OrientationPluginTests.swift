import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxRuntime
import MatteboxTestSupport
import Testing

@Suite struct OrientationPluginTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("orientation") }

    @Test(arguments: 1...8)
    func normalisedPixelsEqualVipsAutorotForEveryOrientation(tag: Int) throws {
        let photoFile = folder.appendingPathComponent("photo-\(tag).png")
        try TestImages.writePhoto(to: photoFile, orientation: tag)
        // A depth map at half resolution, stored with the same orientation.
        let depth = TestImages.matte(width: 24, height: 16, format: .uint16)
        let depthFile = folder.appendingPathComponent("depth-\(tag).png")
        try TestImages.writePhoto(to: depthFile, orientation: tag, image: depth)

        var photo = try ImageDecoder.decodePhoto(at: photoFile)
        #expect(photo.metadata.orientation.rawValue == tag)
        photo.auxiliary[.depth] = depth
        let reports = try BuiltPlugins.runner("stages:\n  - plugin: org.mattebox.orientation", roles: [.depth]).run(&photo)
        #expect(reports.map(\.status) == [.ok])

        #expect(photo.primary.hasSamePixels(as: try TestImages.autorotated(photoFile, scratch: folder)))
        #expect(photo.metadata.orientation == .up)
        let expectedDepth = try TestImages.autorotated(depthFile, scratch: folder, auxiliary: true)
        #expect(photo.auxiliary[.depth]!.width == expectedDepth.width)
        #expect(photo.auxiliary[.depth]!.format == .uint16)
        #expect(photo.auxiliary[.depth]!.hasSamePixels(as: expectedDepth))

        // Written out, the tag is 1 and the EXIF dimensions match the upright pixels.
        let output = folder.appendingPathComponent("out-\(tag).jpg")
        try AtomicFile.write(try ImageEncoder.encode(photo, as: .jpeg), to: output)
        let tags = TestEnvironment.run(["/usr/bin/exiftool", "-s3", "-Orientation#", "-ExifImageWidth", output.path]).output
        let lines = tags.split(separator: "\n")
        #expect(lines.first == "1")
        // ExifImageWidth is written only when the input's EXIF had it; when it is there, it is the upright width.
        if lines.count > 1 { #expect(lines[1] == "\(photo.primary.width)", "\(tags)") }
    }

    @Test func keepModeCarriesTheTagAndLeavesPixels() throws {
        let file = folder.appendingPathComponent("keep.png")
        try TestImages.writePhoto(to: file, orientation: 6)
        var photo = try ImageDecoder.decodePhoto(at: file)
        let stored = photo.primary.copy()
        _ = try BuiltPlugins.runner("stages:\n  - plugin: org.mattebox.orientation\n    params: {mode: keep}").run(&photo)
        #expect(photo.primary.hasSamePixels(as: stored))
        #expect(photo.metadata.orientation.rawValue == 6)
    }

    @Test func stripLocationRemovesGPSFromTheWrittenFile() throws {
        let file = folder.appendingPathComponent("gps.jpg")
        try AtomicFile.write(try ImageEncoder.encode(TestImages.pattern(), as: .jpeg), to: file)
        _ = TestEnvironment.run([
            "/usr/bin/exiftool", "-q", "-overwrite_original", "-GPSLatitude=51.5", "-GPSLatitudeRef=N", "-Make=Test", file.path,
        ])
        var photo = try ImageDecoder.decodePhoto(at: file)
        #expect(photo.metadata.hasLocation)
        _ = try BuiltPlugins.runner("stages:\n  - plugin: org.mattebox.orientation\n    params: {strip-location: true}")
            .run(&photo)
        let output = folder.appendingPathComponent("private.jpg")
        try AtomicFile.write(try ImageEncoder.encode(photo, as: .jpeg), to: output)
        let remaining = TestEnvironment.run(["/usr/bin/exiftool", "-s3", "-GPS:all", "-Make", output.path]).output
        #expect(remaining.trimmingCharacters(in: .whitespacesAndNewlines) == "Test")
    }
}
