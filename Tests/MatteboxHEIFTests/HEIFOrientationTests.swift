import MatteboxCore
import MatteboxISOBMFF
import Testing

@testable import MatteboxHEIF

/// irot/imir and EXIF orientation, against the pairs found in iPhone files.
@Suite struct HEIFOrientationTests {
    private func parse(_ boxes: [[UInt8]]) throws -> [HEIFProperty] {
        try boxes.map { bytes in
            let box = try Box.children(of: bytes, in: 0..<bytes.count, parent: "test")[0]
            return try HEIFProperty.parse(box, in: bytes)
        }
    }

    @Test(arguments: 1...8)
    func everyOrientationSurvivesTheTrip(value: Int) throws {
        let orientation = ExifOrientation(value)!
        let properties = try parse(HEIFOrientation.transformBoxes(for: orientation))
        #expect(HEIFOrientation.orientation(of: properties) == orientation)
    }

    @Test func matchesWhatIPhonesWrite() throws {
        // iPhone 13 Pro Max: irot 3 with EXIF 6; iPhone 14 Pro mirrored: irot 1 + imir 0 with EXIF 5.
        #expect(HEIFOrientation.transformBoxes(for: ExifOrientation(6)!) == [[0, 0, 0, 9, 0x69, 0x72, 0x6F, 0x74, 3]])
        #expect(
            HEIFOrientation.transformBoxes(for: ExifOrientation(5)!)
                == [[0, 0, 0, 9, 0x69, 0x72, 0x6F, 0x74, 1], [0, 0, 0, 9, 0x69, 0x6D, 0x69, 0x72, 0]])
        #expect(HEIFOrientation.transformBoxes(for: .up).isEmpty)
    }
}
