import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxImageIO
import MatteboxRuntime
import MatteboxTestSupport
import Testing

/// JPEG in, JPEG out, pixels unchanged: the file's own bytes are kept (the
/// scan, so no generation loss, and the segments Mattebox does not model,
/// such as IPTC) and only EXIF and XMP are put in anew.
@Suite struct JPEGPassthroughTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("jpeg-passthrough") }

    /// A camera-like JPEG with EXIF (GPS included) and an IPTC (APP13) block, as exiftool writes them.
    private func cameraJPEG() throws -> URL {
        let jpeg = folder.appendingPathComponent("camera.jpg")
        try AtomicFile.write(try ImageEncoder.encode(TestImages.pattern(), as: .jpeg), to: jpeg)
        let tagged = TestEnvironment.run([
            "/usr/bin/exiftool", "-q", "-overwrite_original", "-Make=Canon", "-GPSLatitude=10.5", "-GPSLatitudeRef=N",
            "-IPTC:Keywords=mattebox", "-IPTC:City=Lausanne", jpeg.path,
        ])
        #expect(tagged.status == 0, "\(tagged.errors)")
        return jpeg
    }

    /// The bytes from the start-of-scan marker to the end: the coded image.
    private func scan(_ data: Data) -> [UInt8] {
        let bytes = [UInt8](data)
        var offset = 2
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] != 0xDA {
            offset += 2 + (Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3]))
        }
        return Array(bytes[offset...])
    }

    private func exiftool(_ data: Data, _ tags: [String]) throws -> String {
        let url = folder.appendingPathComponent("out-\(UUID().uuidString).jpg")
        try data.write(to: url)
        return TestEnvironment.run(["/usr/bin/exiftool", "-s", "-s", "-s"] + tags.map { "-\($0)" } + [url.path]).output
    }

    @Test func unchangedPixelsKeepTheScanAndIPTCWithTheNewEXIF() throws {
        let input = try cameraJPEG()
        var photo = try ImageDecoder.decodePhoto(at: input)
        photo.metadata.stripLocation = true  // an EXIF-only change
        let output = try ImageEncoder.encode(photo, as: .jpeg)
        #expect(scan(output) == scan(try Data(contentsOf: input)))
        let tags = try exiftool(output, ["Make", "GPSLatitude", "Keywords", "City"])
        #expect(tags.contains("Canon") && tags.contains("mattebox") && tags.contains("Lausanne"), "\(tags)")
        #expect(!tags.contains("10"), "the location was stripped: \(tags)")
        let written = folder.appendingPathComponent("written.jpg")
        try output.write(to: written)
        #expect(try ImageDecoder.decodePhoto(at: written).primary.hasSamePixels(as: photo.primary))
    }

    @Test func changedPixelsOrReencodeEncodeAgain() throws {
        let input = try cameraJPEG()
        let original = scan(try Data(contentsOf: input))
        var photo = try ImageDecoder.decodePhoto(at: input)
        #expect(scan(try ImageEncoder.encode(photo, as: .jpeg, heif: HEIFWriteOptions(passthrough: false))) != original)
        photo.primary.data.storeBytes(of: 255 - photo.primary.data.load(as: UInt8.self), as: UInt8.self)
        #expect(scan(try ImageEncoder.encode(photo, as: .jpeg)) != original)
    }

    @Test func aNewColourProfileIsAChange() throws {
        let input = try cameraJPEG()
        var photo = try ImageDecoder.decodePhoto(at: input)
        photo.metadata.iccProfile = Data("another profile".utf8)
        #expect(scan(try ImageEncoder.encode(photo, as: .jpeg)) != scan(try Data(contentsOf: input)))
    }

    @Test func aJPEGEncodedAgainKeepsIPTCAndOtherFormatsSayTheyDoNot() throws {
        let input = try cameraJPEG()
        var photo = try ImageDecoder.decodePhoto(at: input)
        photo.primary.data.storeBytes(of: 255 - photo.primary.data.load(as: UInt8.self), as: UInt8.self)
        var notes: [String: String] = [:]
        let jpeg = try ImageEncoder.encode(photo, as: .jpeg, quality: 92, heif: HEIFWriteOptions(), notes: &notes)
        #expect(scan(jpeg) != scan(try Data(contentsOf: input)), "encoded again")
        let tags = try exiftool(jpeg, ["Keywords", "City", "Make"])
        #expect(tags.contains("mattebox") && tags.contains("Lausanne") && tags.contains("Canon"), "\(tags)")
        #expect(notes.isEmpty, "\(notes)")
        let png = OutputFormat.png.container.limitations(of: photo, auxiliaryBeside: false)
        #expect(png["jpegSegments"]?.contains("IPTC") == true, "\(png)")
    }
}
