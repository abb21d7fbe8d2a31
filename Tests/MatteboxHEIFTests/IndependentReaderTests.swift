import Foundation
import MatteboxCore
import MatteboxRuntime
import MatteboxTestSupport
import Testing

@testable import MatteboxHEIF

/// Files Mattebox writes, read by other software on this machine: heif-info,
/// heif-convert, exiftool and libheif's C API.
@Suite struct IndependentReaderTests {
    let folder: URL
    let file: URL

    init() throws {
        folder = try TestEnvironment.scratchDirectory("heif-readers")
        file = folder.appendingPathComponent("portrait.heic")
        let photo = TestPhotos.portrait(orientation: 6)
        try AtomicFile.write(try HEIFWriter.encode(photo, options: HEIFWriteOptions(preset: "ultrafast", thumbnailSize: 64)), to: file)
    }

    @Test func heifInfoShowsTheDepthChannelWithItsRange() {
        let result = TestEnvironment.run(["/usr/bin/heif-info", file.path])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("image: 192x256"))  // displayed size, after irot
        #expect(result.output.contains("thumbnail: 48x64"))
        #expect(result.output.contains("depth channel: yes"))
        #expect(result.output.contains("d-min:  0.500000"))
        #expect(result.output.contains("d-max:  4.000000"))
        #expect(result.output.contains("representation: uniform disparity"))
    }

    @Test func heifConvertExtractsEveryAuxiliaryImageWithItsType() throws {
        let result = TestEnvironment.run(
            ["/usr/bin/heif-convert", "--with-aux", "--no-colons", file.path, folder.appendingPathComponent("out.png").path])
        #expect(result.status == 0, "\(result.errors)")
        let expected: [(String, Int, Int)] = [  // displayed sizes (irot 3 turns them)
            ("out-depth.png", 48, 64),
            ("out-urn_com_apple_photo_2018_aux_portraiteffectsmatte.png", 96, 128),
            ("out-urn_com_apple_photo_2019_aux_semantichairmatte.png", 96, 128),
            ("out-urn_com_apple_photo_2019_aux_semanticskinmatte.png", 96, 128),
            ("out-urn_org_mattebox_aux_com.example.normals.png", 24, 32),
        ]
        for (name, width, height) in expected {
            let header = TestEnvironment.run(["/usr/bin/vipsheader", folder.appendingPathComponent(name).path])
            #expect(header.status == 0, "\(name) was not written: \(result.output)")
            #expect(header.output.contains("\(width)x\(height)"), "\(name): \(header.output)")
        }
    }

    @Test func exiftoolSeesEachAuxiliaryTypeAndTheXMP() {
        let result = TestEnvironment.run(["/usr/bin/exiftool", "-a", "-G3", "-AuxiliaryImageType", "-CreatorTool", "-Orientation", file.path])
        #expect(result.status == 0, "\(result.errors)")
        for urn in [
            "urn:mpeg:hevc:2015:auxid:2", "urn:com:apple:photo:2018:aux:portraiteffectsmatte",
            "urn:com:apple:photo:2019:aux:semantichairmatte", "urn:com:apple:photo:2019:aux:semanticskinmatte",
        ] {
            #expect(result.output.contains(urn), "\(urn) missing in \(result.output)")
        }
        #expect(result.output.contains(": disparity"))  // apdi:AuxiliaryImageType from the depth XMP
        #expect(result.output.contains("Mattebox tests"))
        #expect(result.output.contains("Rotate 90 CW"))
    }

    @Test func libheifsCAPIListsTheAuxiliaryImages() throws {
        let text = try Libheif.describe(try HEIFReader.readBytes(file))
        let lines = Set(text.split(separator: "\n").map(String.init))
        #expect(lines.contains("primary 192 256"))
        #expect(lines.contains { $0.hasPrefix("aux ") && $0.hasSuffix("urn:com:apple:photo:2019:aux:semantichairmatte 96 128") })
        #expect(lines.contains { $0.hasPrefix("aux ") && $0.hasSuffix("urn:mpeg:hevc:2015:auxid:2 48 64") })
        #expect(lines.contains("depth-representation 1 0.500000 4.000000 - -"))
        #expect(lines.contains { $0.hasPrefix("metadata Exif") })
    }
}
