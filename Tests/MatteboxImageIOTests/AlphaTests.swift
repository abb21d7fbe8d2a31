import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxISOBMFF
import MatteboxImageIO
import MatteboxRuntime
import MatteboxTestSupport
import Testing

/// Transparency is read apart from the colour (as HEIF keeps it) and written
/// back: into PNG as its fourth channel, into HEIF as an alpha auxiliary
/// image libheif shows as transparency; JPEG, which cannot hold it, says so.
@Suite struct AlphaTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("alpha") }

    /// An RGBA PNG whose alpha ramps from 0 to 255 left to right.
    func rgbaPNG() throws -> (url: URL, pixels: PixelImage) {
        let colour = TestImages.pattern(width: 64, height: 48)
        let alpha = PixelImage(width: 64, height: 48, channels: 1, format: .uint8)
        for y in 0..<48 { for x in 0..<64 { alpha.data.storeBytes(of: UInt8(x * 4), toByteOffset: y * 64 + x, as: UInt8.self) } }
        let rgba = try #require(colour.addingAlpha(alpha))
        let url = folder.appendingPathComponent("rgba.png")
        try AtomicFile.write(try ImageEncoder.encode(rgba, as: .png), to: url)
        return (url, rgba)
    }

    func decode(_ data: Data, _ name: String) throws -> Photo {
        let url = folder.appendingPathComponent(name)
        try data.write(to: url)
        return try ImageDecoder.decodePhoto(at: url)
    }

    @Test func aPNGsAlphaComesBackWholeFromPNGAndHEIF() throws {
        let (url, rgba) = try rgbaPNG()
        let photo = try ImageDecoder.decodePhoto(at: url)
        #expect(photo.primary.channels == 3)
        let alpha = try #require(photo.auxiliary[.alpha])
        #expect(alpha.sample(x: 0, y: 10) == 0 && alpha.sample(x: 63, y: 10) == 252)
        // Straight colour, not flattened on white: transparent pixels keep their colour.
        #expect(photo.primary.sample(x: 0, y: 10, channel: 0) == rgba.sample(x: 0, y: 10, channel: 0))

        var notes: [String: String] = [:]
        let png = try decode(try ImageEncoder.encode(photo, as: .png, quality: 92, heif: HEIFWriteOptions(), notes: &notes), "out.png")
        #expect(png.primary.addingAlpha(png.auxiliary[.alpha]!)!.hasSamePixels(as: rgba))
        #expect(OutputFormat.png.container.limitations(of: photo, auxiliaryBeside: false).isEmpty)

        let heif = try decode(try ImageEncoder.encode(photo, as: .heic), "out.heic")
        let heifAlpha = try #require(heif.auxiliary[.alpha])
        #expect(abs(heifAlpha.sample(x: 0, y: 10) - 0) <= 8 && abs(heifAlpha.sample(x: 63, y: 10) - 252) <= 8)
        let info = TestEnvironment.run(["/usr/bin/heif-info", folder.appendingPathComponent("out.heic").path]).output
        #expect(info.contains("alpha channel: yes"), "\(info)")
    }

    @Test func jpegSaysItDidNotKeepTheAlpha() throws {
        let photo = try ImageDecoder.decodePhoto(at: try rgbaPNG().url)
        let notes = OutputFormat.jpeg.container.limitations(of: photo, auxiliaryBeside: false)
        #expect(notes["alpha"]?.contains("not kept") == true, "\(notes)")
        #expect(notes["auxiliaryImages"] == nil, "alpha is named once, as alpha")
    }
}

/// Bits per sample are kept up to what HEVC holds here: a 16-bit PNG becomes
/// a 12-bit HEIF (with a note), and a 12-bit HEIF stays 12-bit, copied or encoded.
@Suite struct BitDepthTests {
    @Test func sixteenBitsBecomeTwelveAndTwelveStayTwelve() throws {
        let folder = try TestEnvironment.scratchDirectory("bit-depth")
        defer { try? FileManager.default.removeItem(at: folder) }
        let wide = TestImages.matte(width: 64, height: 48, format: .uint16).converted(channels: 3, eightBit: false)
        let png = folder.appendingPathComponent("wide.png")
        try AtomicFile.write(try ImageEncoder.encode(wide, as: .png), to: png)
        var photo = try ImageDecoder.decodePhoto(at: png)
        #expect(photo.primary.format == .uint16)
        #expect(OutputFormat.heic.container.limitations(of: photo, auxiliaryBeside: false)["bitDepth"]?.contains("12-bit") == true)

        func bits(_ data: Data) throws -> Int {
            let container = try HEIFFile(bytes: [UInt8](data))
            guard case .codingConfiguration(_, let bits)? = container.property("hvcC", of: container.primaryID)?.value else { return 0 }
            return bits
        }
        let twelve = folder.appendingPathComponent("twelve.heic")
        try AtomicFile.write(try ImageEncoder.encode(photo, as: .heic), to: twelve)
        #expect(try bits(Data(contentsOf: twelve)) == 12)

        photo = try ImageDecoder.decodePhoto(at: twelve)
        #expect(try bits(ImageEncoder.encode(photo, as: .heic)) == 12, "copied")
        photo.primary.data.storeBytes(of: 0, as: UInt16.self)
        #expect(try bits(ImageEncoder.encode(photo, as: .heic)) == 12, "encoded again")
    }
}
