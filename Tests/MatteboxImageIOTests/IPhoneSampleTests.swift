import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxTestSupport
import Testing

/// Real iPhone HEICs from ../shared/heic-samples (skipped when it is absent).
@Suite struct IPhoneSampleTests {
    static let samples = TestEnvironment.shared?.appendingPathComponent("heic-samples")

    @Test(.enabled(if: samples != nil, "../shared/heic-samples is not beside this checkout; skipping iPhone samples"))
    func rotatedIPhonePhotosComeOutUprightOnce() throws {
        // iPhone 13 Pro Max: sensor-oriented 4032x3024 grid, irot 3, EXIF Orientation 6.
        let photo = try ImageDecoder.decodePhoto(at: Self.samples!.appendingPathComponent("exif-samples__iphone_13_pro_max.HEIC"))
        #expect(photo.primary.width == 3024 && photo.primary.height == 4032)
        #expect(photo.metadata.exif?.orientation == 6)
        #expect(photo.metadata.orientation == .up)
        #expect(photo.metadata.exif?.make == "Apple")
        // irot 1 + imir 0 (EXIF 5): libheif turns and mirrors it; nothing is left to do.
        let mirrored = try ImageDecoder.decodePhoto(at: Self.samples!.appendingPathComponent("openize__iphone_rotated_and_mirrored.heic"))
        #expect(mirrored.primary.width == 2316 && mirrored.primary.height == 3088)
        #expect(mirrored.metadata.orientation == .up)
    }

    @Test(.enabled(if: samples != nil, "../shared/heic-samples is not beside this checkout; skipping iPhone samples"))
    func theIOS18FileLibheifRefusesFailsWithAClearMessage() throws {
        let url = Self.samples!.appendingPathComponent("openize__iphone_iOS18_tmap+MatteMaps.heic")
        let error = #expect(throws: MatteboxError.self) { try ImageDecoder.decodePhoto(at: url) }
        #expect(error?.message.contains("Too many auxiliary image references") == true)
        #expect(error?.message.components(separatedBy: url.path).count == 2)  // the path, once
    }
}
