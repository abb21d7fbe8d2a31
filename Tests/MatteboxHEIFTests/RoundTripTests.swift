import Foundation
import MatteboxCore
import MatteboxTestSupport
import Testing

@testable import MatteboxHEIF

/// Writing a photo with depth and mattes, then reading it back with Mattebox.
@Suite struct RoundTripTests {
    let written = TestPhotos.portrait(orientation: 6)
    let read: Photo

    init() throws {
        let bytes = try HEIFWriter.build(written, options: HEIFWriteOptions(quality: 92, preset: "ultrafast"))
        read = try HEIFReader.readPhoto(bytes)
    }

    @Test func metadataAndOrientationComeBack() {
        #expect(read.metadata.orientation == ExifOrientation(6)!)
        #expect(read.metadata.exif?.orientation == 6)
        #expect(read.metadata.xmp == written.metadata.xmp)
        #expect(read.primary.width == 256 && read.primary.height == 192)
    }

    @Test func everyAuxiliaryImageComesBackWithItsTypeAndSize() {
        #expect(Set(read.auxiliary.keys) == Set(written.auxiliary.keys))
        for (role, image) in written.auxiliary {
            #expect(read.auxiliary[role]?.width == image.width && read.auxiliary[role]?.height == image.height, "\(role)")
        }
        #expect(read.metadata.auxiliaryInfo[.hairMatte]?.typeURN == "urn:com:apple:photo:2019:aux:semantichairmatte")
        #expect(read.metadata.auxiliaryInfo["com.example.normals"]?.typeURN == "urn:org:mattebox:aux:com.example.normals")
    }

    @Test func floatDisparityIsStoredWithItsRange() throws {
        let depth = try #require(read.metadata.auxiliaryInfo[.disparity]?.depth)
        #expect(depth.kind == .uniformDisparity)
        #expect(abs(depth.disparityMinimum! - 0.5) < 1e-3)
        #expect(abs(depth.disparityMaximum! - 4.0) < 1e-3)
        // Stored 8-bit values map linearly onto the range: left edge 0, right edge 255.
        let disparity = try #require(read.auxiliary[.disparity])
        #expect(disparity.format == .uint8)
        #expect(disparity.sample(x: 0, y: 10) < 4)
        #expect(disparity.sample(x: 63, y: 10) > 251)
        let xmp = String(decoding: read.metadata.auxiliaryInfo[.disparity]?.xmp ?? Data(), as: UTF8.self)
        #expect(xmp.contains("apdi:AuxiliaryImageType=\"disparity\""))
        #expect(xmp.contains("apdi:FloatMaxValue=\"4.000000\""))
    }

    @Test func pixelsComeBackWithinTheCodecsLoss() throws {
        let primaryPSNR = TestPhotos.psnr(written.primary, read.primary)
        let mattePSNR = TestPhotos.psnr(written.auxiliary[.hairMatte]!, read.auxiliary[.hairMatte]!)
        print("round trip PSNR at quality 92: primary \(String(format: "%.1f", primaryPSNR)) dB, matte \(String(format: "%.1f", mattePSNR)) dB")
        #expect(primaryPSNR > 30)
        #expect(mattePSNR > 30)
    }

    @Test func aRewriteKeepsTheXMPAndRangeOfImagesItDidNotChange() throws {
        let again = try HEIFReader.readPhoto(try HEIFWriter.build(read, options: HEIFWriteOptions(preset: "ultrafast")))
        #expect(again.metadata.auxiliaryInfo[.disparity]?.xmp == read.metadata.auxiliaryInfo[.disparity]?.xmp)
        #expect(again.metadata.auxiliaryInfo[.disparity]?.depth == read.metadata.auxiliaryInfo[.disparity]?.depth)
    }

    @Test func replacingAnImageDropsWhatTheFileSaidAboutTheOldOne() {
        var photo = read
        photo.setAuxiliary(TestImages.matte(width: 64, height: 48), for: .disparity)
        #expect(photo.metadata.auxiliaryInfo[.disparity] == nil)
    }

    @Test func auxiliaryImagesWithTransformsOfTheirOwnAreBroughtIntoThePrimarysFrame() throws {
        let image = TestImages.matte(width: 6, height: 4)
        // Stored upright (EXIF 1) while the primary's stored frame is EXIF 6: turn it back.
        let aligned = try StoredFrame.align(image, from: .up, to: ExifOrientation(6)!)
        #expect(aligned.width == 4 && aligned.height == 6)
        #expect(StoredFrame.apply(ExifOrientation(6)!, to: aligned).hasSamePixels(as: image))
    }
}
