import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxRuntime
import MatteboxTestSupport
import Testing

@Suite struct DecodeTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("decode") }

    /// A JPEG with camera EXIF written by exiftool (an independent writer).
    private func cameraJPEG() throws -> URL {
        let png = folder.appendingPathComponent("pattern.png")
        try AtomicFile.write(try ImageEncoder.encode(TestImages.pattern(), as: .png), to: png)
        let jpeg = folder.appendingPathComponent("camera.jpg")
        #expect(TestEnvironment.run(["/usr/bin/vips", "copy", png.path, jpeg.path]).status == 0)
        let tagged = TestEnvironment.run([
            "/usr/bin/exiftool", "-q", "-overwrite_original", "-Make=Canon", "-Model=EOS R5", "-Orientation#=6",
            "-LensModel=front camera", "-GPSLatitude=10.5", "-GPSLatitudeRef=N",
            "-DateTimeOriginal=2024:01:02 03:04:05", jpeg.path,
        ])
        #expect(tagged.status == 0, "\(tagged.errors)")
        return jpeg
    }

    @Test func readsPixelsAsStoredWithParsedExif() throws {
        let photo = try ImageDecoder.decodePhoto(at: try cameraJPEG())
        #expect(photo.primary.width == 48 && photo.primary.height == 32)  // not auto-rotated
        #expect(photo.primary.channels == 3 && photo.primary.format == .uint8)
        #expect(photo.metadata.orientation.rawValue == 6)
        #expect(photo.metadata.exif?.make == "Canon")
        #expect(photo.metadata.exif?.model == "EOS R5")
        #expect(photo.metadata.exif?.dateTimeOriginal == "2024:01:02 03:04:05")
        #expect(photo.metadata.hasLocation)
        #expect(photo.metadata.capture.position == .front)
        #expect(photo.metadata.capture.device == "Canon EOS R5")
    }

    @Test func truncatedJPEGFailsNamingTheFile() throws {
        let whole = try Data(contentsOf: try cameraJPEG())
        let truncated = folder.appendingPathComponent("truncated.jpg")
        try whole.prefix(whole.count / 2).write(to: truncated)
        let error = #expect(throws: MatteboxError.self) { try ImageDecoder.decodePhoto(at: truncated) }
        #expect(error?.message.contains(truncated.path) == true)
    }

    @Test func emptyAndNonImageFilesFailClearly() throws {
        let empty = folder.appendingPathComponent("empty.jpg")
        try Data().write(to: empty)
        let emptyError = #expect(throws: MatteboxError.self) { try ImageDecoder.decodePhoto(at: empty) }
        #expect(emptyError?.message.contains("empty file") == true)

        let text = folder.appendingPathComponent("notes.jpg")
        try Data("this is not an image".utf8).write(to: text)
        let textError = #expect(throws: MatteboxError.self) { try ImageDecoder.decodePhoto(at: text) }
        #expect(textError?.message.contains(text.path) == true)

        let missing = folder.appendingPathComponent("missing.jpg")
        let missingError = #expect(throws: MatteboxError.self) { try ImageDecoder.decodePhoto(at: missing) }
        #expect(missingError?.message.contains("No such file") == true)
    }

    @Test func readsTheHEICPrimaryImage() throws {
        let png = folder.appendingPathComponent("for-heif.png")
        try AtomicFile.write(try ImageEncoder.encode(TestImages.pattern(width: 64, height: 48), as: .png), to: png)
        let heic = folder.appendingPathComponent("photo.heic")
        let encoded = TestEnvironment.run(["/usr/bin/heif-enc", "-q", "90", png.path, "-o", heic.path])
        #expect(encoded.status == 0, "\(encoded.errors)")
        let photo = try ImageDecoder.decodePhoto(at: heic)
        #expect(photo.primary.width == 64 && photo.primary.height == 48 && photo.primary.channels == 3)
        // Lossy, but the gradient survives: the right edge is far redder than the left.
        #expect(photo.primary.sample(x: 60, y: 24, channel: 0) > photo.primary.sample(x: 3, y: 24, channel: 0) + 150)
    }

    @Test func sixteenBitPNGKeepsSixteenBits() throws {
        let depth = TestImages.matte(width: 20, height: 10, format: .uint16)
        let url = folder.appendingPathComponent("depth16.png")
        try AtomicFile.write(try ImageEncoder.encode(depth, as: .png), to: url)
        let decoded = try ImageDecoder.decodeAuxiliaryImage(at: url)
        #expect(decoded.format == .uint16)
        #expect(decoded.hasSamePixels(as: depth))
    }
}
