import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxImageOps
import MatteboxRuntime
import MatteboxTestSupport
import Testing

@Suite struct EncodeTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("encode") }

    private func exiftool(_ url: URL, _ tags: [String]) -> String {
        TestEnvironment.run(["/usr/bin/exiftool", "-s", "-s", "-s"] + tags.map { "-\($0)" } + [url.path]).output
    }

    private func cameraPhoto() throws -> Photo {
        let jpeg = folder.appendingPathComponent("camera.jpg")
        try AtomicFile.write(try ImageEncoder.encode(TestImages.pattern(), as: .jpeg), to: jpeg)
        let tagged = TestEnvironment.run([
            "/usr/bin/exiftool", "-q", "-overwrite_original", "-Make=Canon", "-Orientation#=8", "-ExifImageWidth=48",
            "-ExifImageHeight=32", "-GPSLatitude=10.5", "-GPSLatitudeRef=N", jpeg.path,
        ])
        #expect(tagged.status == 0)
        return try ImageDecoder.decodePhoto(at: jpeg)
    }

    @Test(arguments: [OutputFormat.jpeg, .png])
    func writesExifThatExiftoolReads(format: OutputFormat) throws {
        var photo = try cameraPhoto()
        try photo.apply(.rotate270)
        photo.metadata.orientation = .up
        let url = folder.appendingPathComponent("out.\(format.fileExtension)")
        try AtomicFile.write(try ImageEncoder.encode(photo, as: format), to: url)
        let tags = exiftool(url, ["Make", "Orientation#", "ExifImageWidth", "ExifImageHeight", "ImageWidth", "GPSLatitudeRef"])
            .split(separator: "\n").map(String.init)
        #expect(tags == ["Canon", "1", "32", "48", "32", "North"])
    }

    @Test func strippingLocationRemovesEveryGPSTag() throws {
        var photo = try cameraPhoto()
        photo.metadata.stripLocation = true
        let url = folder.appendingPathComponent("private.jpg")
        try AtomicFile.write(try ImageEncoder.encode(photo, as: .jpeg), to: url)
        #expect(exiftool(url, ["GPS:all"]).isEmpty)
        #expect(exiftool(url, ["Make"]).trimmingCharacters(in: .whitespacesAndNewlines) == "Canon")
        // No coordinate bytes left behind either.
        let exif = try #require(try ImageDecoder.decodePhoto(at: url).metadata.exif)
        #expect(!exif.hasLocation)
    }

    @Test func photosWithoutExifGainOneOnlyWhenOrientationNeedsIt() throws {
        var photo = Photo(primary: TestImages.pattern())
        let plain = try ImageEncoder.encode(photo, as: .jpeg)
        #expect(ExifBlock.findInJPEG(plain) == nil)
        photo.metadata.orientation = ExifOrientation(2)!
        let url = folder.appendingPathComponent("mirrored.jpg")
        try AtomicFile.write(try ImageEncoder.encode(photo, as: .jpeg), to: url)
        #expect(exiftool(url, ["Orientation#"]).trimmingCharacters(in: .whitespacesAndNewlines) == "2")
    }
}

extension ExifBlock {
    /// The EXIF APP1 payload of a JPEG, if any (a test-side reader).
    static func findInJPEG(_ data: Data) -> ExifBlock? {
        let bytes = [UInt8](data)
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] != 0xDA {
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if bytes[offset + 1] == 0xE1, let block = ExifBlock(Array(bytes[(offset + 4)..<(offset + 2 + length)])) {
                return block
            }
            offset += 2 + length
        }
        return nil
    }
}
