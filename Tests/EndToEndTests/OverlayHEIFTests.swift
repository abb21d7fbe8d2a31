import Foundation
import MatteboxISOBMFF
import MatteboxTestSupport
import Testing

/// Found: a HEIF whose primary image is an `iovl` overlay (libheif reads it)
/// was refused. It is read through libheif's composition and, when no stage
/// changed it, written back as the same overlay.
@Suite struct OverlayHEIFTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("overlay") }

    /// A file whose primary is an overlay: one coded image placed at (16, 8) on a
    /// canvas 32 px wider and 16 px taller, filled with opaque red.
    func overlayFile() throws -> URL {
        let coded = folder.appendingPathComponent("coded.heic")
        let made = TestEnvironment.run([
            "/usr/bin/heif-enc", "-q", "70", TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-1.jpg").path,
            "-o", coded.path,
        ])
        #expect(made.status == 0, "\(made.errors)")
        let source = try HEIFFile(bytes: [UInt8](try Data(contentsOf: coded)))
        let image = source.primaryID
        let size = try #require(source.codedSize(of: image))
        var builder = HEIFBuilder()
        let input = try builder.addItem(type: "hvc1", hidden: true, data: try source.data(of: image))
        for (property, essential) in source.properties(of: image) { builder.associate(input, property: property.box, essential: essential) }
        var overlay = ByteWriter()
        overlay.u8(0)  // version
        overlay.u8(0)  // flags: 16-bit fields
        for channel: UInt16 in [0xFFFF, 0, 0, 0xFFFF] { overlay.u16(channel) }  // canvas fill RGBA
        overlay.u16(UInt16(size.width + 32))
        overlay.u16(UInt16(size.height + 16))
        overlay.u16(16)  // horizontal offset
        overlay.u16(8)  // vertical offset
        let canvas = try builder.addItem(type: "iovl", hidden: false, data: overlay.bytes)
        builder.associate(canvas, property: ByteWriter.fullBox("ispe") {
            $0.u32(UInt32(size.width + 32))
            $0.u32(UInt32(size.height + 16))
        }, essential: false)
        builder.addReference("dimg", from: canvas, to: [input])
        builder.setPrimary(canvas)
        let url = folder.appendingPathComponent("overlay.heic")
        try Data(try builder.serialize()).write(to: url)
        return url
    }

    func pixel(_ file: URL, x: Int, y: Int) -> String {
        TestEnvironment.run(["/usr/bin/vips", "getpoint", file.path, "\(x)", "\(y)"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func anOverlayIsReadAndWrittenBackAsTheSameOverlay() throws {
        let input = try overlayFile()
        let width = Int(TestEnvironment.run(["/usr/bin/vipsheader", "-f", "width", input.path]).output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(width > 32, "libvips (libheif) composes the overlay")
        #expect(pixel(input, x: 2, y: 2).hasPrefix("255 0 0"), "the canvas is red: \(pixel(input, x: 2, y: 2))")
        // Read, with nothing changed, written back as HEIC: the same overlay, its input copied as coded.
        let out = folder.appendingPathComponent("out")
        let heic = TestEnvironment.run([TestEnvironment.mattebox, "process", input.path, "-o", out.path, "--format", "heic"])
        #expect(heic.status == 0, "\(heic.output)\(heic.errors)")
        let written = out.appendingPathComponent("overlay.heic")
        let container = try HEIFFile(bytes: [UInt8](try Data(contentsOf: written)))
        #expect(container.items[container.primaryID]?.type == "iovl", "the primary is still an overlay")
        let original = try HEIFFile(bytes: [UInt8](try Data(contentsOf: input)))
        let inputItem = try #require(original.targets(of: original.primaryID, by: "dimg").first)
        let writtenItem = try #require(container.targets(of: container.primaryID, by: "dimg").first)
        #expect(try container.data(of: writtenItem) == original.data(of: inputItem), "the overlay's image is copied as coded")
        #expect(pixel(written, x: 2, y: 2) == pixel(input, x: 2, y: 2) && pixel(written, x: 100, y: 60) == pixel(input, x: 100, y: 60))
        // And as JPEG: the composed picture, red margins included.
        let jpeg = TestEnvironment.run([TestEnvironment.mattebox, "process", input.path, "-o", folder.appendingPathComponent("jpeg").path, "--format", "jpeg"])
        #expect(jpeg.status == 0, "\(jpeg.output)\(jpeg.errors)")
        let composed = folder.appendingPathComponent("jpeg/overlay.jpg")
        let red = pixel(composed, x: 2, y: 2).split(separator: " ").compactMap { Int($0) }
        #expect(red.count == 3 && red[0] > 200 && red[1] < 60 && red[2] < 60, "\(red)")
    }
}
