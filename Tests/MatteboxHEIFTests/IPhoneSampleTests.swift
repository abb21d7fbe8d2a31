import Foundation
import MatteboxCore
import MatteboxISOBMFF
import MatteboxImageOps
import MatteboxTestSupport
import Testing

@testable import MatteboxHEIF

let iPhoneSamples = TestEnvironment.shared?.appendingPathComponent("heic-samples")

/// Real iPhone HEICs from ../shared/heic-samples (skipped when it is absent):
/// read with depth, mattes and orientation as their SOURCES.md describes, then
/// rewritten and read again with nothing lost.
@Suite(.enabled(if: iPhoneSamples != nil, "../shared/heic-samples is not beside this checkout; skipping iPhone samples"))
struct IPhoneSampleTests {
    static let samples = iPhoneSamples

    struct Expectation: Sendable, CustomStringConvertible {
        var file: String
        var stored: (Int, Int)
        var orientation: Int
        var auxiliary: [String: (Int, Int)]
        var disparityRange: ClosedRange<Double>?
        var description: String { file }
    }

    static let expectations: [Expectation] = [
        Expectation(
            file: "pillow_heif__pug.heic", stored: (4032, 3024), orientation: 1,
            auxiliary: ["disparity": (768, 576), "com.apple.hdrgainmap": (2016, 1512)], disparityRange: 1.498...4.383),
        Expectation(
            file: "openize__iphone_portrait_photo.heic", stored: (3024, 4032), orientation: 1,
            auxiliary: ["disparity": (576, 768), "com.apple.hdrgainmap": (1512, 2016)], disparityRange: 0.536...3.567),
        Expectation(
            file: "openize__iphone_rotated_and_mirrored.heic", stored: (3088, 2316), orientation: 5,
            auxiliary: ["com.apple.hdrgainmap": (1544, 1158)]),
        Expectation(
            file: "exif-samples__iphone_13_pro_max.HEIC", stored: (4032, 3024), orientation: 6,
            auxiliary: ["com.apple.hdrgainmap": (2016, 1512)]),
        Expectation(
            file: "openize__iphone_iOS18_tmap+MatteMaps.heic", stored: (5712, 4284), orientation: 6,
            auxiliary: [
                "portraitMatte": (2016, 1512), "skinMatte": (2016, 1512), "skyMatte": (2016, 1512),
                "com.apple.hdrgainmap": (2856, 2142), "com.apple.linearthumbnail": (1024, 768),
                "com.apple.styledeltamap": (4096, 3072),
            ]),
        Expectation(
            file: "synthetic_recipe_libheif115.heic", stored: (640, 480), orientation: 1,
            auxiliary: ["disparity": (160, 120), "hairMatte": (320, 240), "skinMatte": (320, 240), "teethMatte": (320, 240)],
            disparityRange: 1.498...4.383),
    ]

    @Test(arguments: expectations)
    func readsWhatTheSampleHolds(_ expected: Expectation) throws {
        let url = Self.samples!.appendingPathComponent(expected.file)
        let photo = try HEIFReader.readPhoto(at: url)
        #expect(photo.primary.width == expected.stored.0 && photo.primary.height == expected.stored.1)
        #expect(photo.metadata.orientation.rawValue == expected.orientation)
        #expect(Set(photo.auxiliary.keys.map(\.rawValue)) == Set(expected.auxiliary.keys))
        for (role, size) in expected.auxiliary {
            let image = photo.auxiliary[ImageRole(role)]
            #expect(image?.width == size.0 && image?.height == size.1, "\(role)")
        }
        if let range = expected.disparityRange {
            let depth = try #require(photo.metadata.auxiliaryInfo[.disparity]?.depth)
            #expect(depth.kind == .uniformDisparity)
            #expect(abs(depth.disparityMinimum! - range.lowerBound) < 0.001)
            #expect(abs(depth.disparityMaximum! - range.upperBound) < 0.001)
        }
        // The camera maker as exiftool reads it, whether the file has EXIF or not.
        let make = TestEnvironment.run(["/usr/bin/exiftool", "-s3", "-EXIF:Make", url.path]).output
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect((photo.metadata.exif?.make ?? "") == make, "exiftool reads Make '\(make)'")
    }

    /// An iOS 18 file with a tone map that Debian's libheif 1.15 cannot open.
    static let fileLibheifRefuses = "openize__iphone_iOS18_tmap+MatteMaps.heic"

    @Test func theIOS18FileLibheifRefusesIsReadAndItsRewriteOpensInLibheif() throws {
        let url = Self.samples!.appendingPathComponent(Self.fileLibheifRefuses)
        let original = try HEIFReader.readBytes(url)
        #expect(throws: HEIFError.self) { try Libheif.describe(original) }
        let photo = try HEIFReader.readPhoto(at: url)
        let rewritten = try HEIFWriter.build(photo, options: HEIFWriteOptions(quality: 90, preset: "ultrafast"))
        let libheif = try Libheif.describe(rewritten)
        // libheif reports sizes after irot: 2016x1512 mattes display as 1512x2016.
        #expect(libheif.contains("urn:com:apple:photo:2018:aux:portraiteffectsmatte 1512 2016"))
        #expect(libheif.contains("urn:com:apple:photo:2019:aux:semanticskinmatte 1512 2016"))
        // The mattes come back in the same frame: the same pixels within the codec's loss.
        let again = try HEIFReader.readPhoto(rewritten)
        for role: ImageRole in [.portraitMatte, .skinMatte, .skyMatte] {
            let psnr = TestPhotos.psnr(photo.auxiliary[role]!, again.auxiliary[role]!)
            print("iOS 18 sample \(role) after rewrite: PSNR \(String(format: "%.1f", psnr)) dB")
            #expect(psnr > 35, "\(role)")
        }
        #expect(again.metadata.orientation == photo.metadata.orientation)
        #expect(again.metadata.auxiliaryInfo[.portraitMatte]?.xmp == photo.metadata.auxiliaryInfo[.portraitMatte]?.xmp)
    }
}

extension IPhoneSampleTests {
    /// A library shows each photo's own thumbnail, decoded alone: present exactly when
    /// libheif's heif-info lists one, and shaped like the photo as displayed.
    @Test(arguments: expectations) func theStoredThumbnailIsReadAloneInThePhotosShape(_ expected: Expectation) throws {
        let url = try #require(Self.samples).appendingPathComponent(expected.file)
        let thumbnail = try HEIFReader.readThumbnail(at: url)
        let info = TestEnvironment.run(["heif-info", url.path])
        if expected.file == Self.fileLibheifRefuses {
            #expect(info.status != 0, "libheif 1.15 refuses this file (see the test below); if it reads it now, check its thumbnail")
        } else {
            try #require(info.status == 0, "heif-info (libheif-examples, installed by make deps) must read \(expected.file): \(info.errors)")
            #expect((thumbnail != nil) == info.output.contains("thumbnail:"), "\(info.output)")
        }
        guard let thumbnail else { return }
        let upright = try thumbnail.displayedUpright().primary
        #expect(max(upright.width, upright.height) <= 512)
        let photo = try HEIFReader.readPhoto(at: url).displayedUpright().primary
        let aspect = { (w: Int, h: Int) in Double(w) / Double(h) }
        #expect(abs(aspect(upright.width, upright.height) - aspect(photo.width, photo.height)) < 0.05,
                "thumbnail \(upright.width)x\(upright.height), photo \(photo.width)x\(photo.height)")
    }
}
