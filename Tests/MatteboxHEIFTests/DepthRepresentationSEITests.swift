import MatteboxCore
import MatteboxISOBMFF
import Testing

@testable import MatteboxHEIF

/// The depth representation SEI against the bytes an iPhone wrote.
@Suite struct DepthRepresentationSEITests {
    /// pug.heic's auxC subtype (iPhone 13 Pro): uniform disparity 1.498046875...4.3828125.
    static let applePug: [UInt8] = [
        0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 0x0D, 0x4E, 0x01, 0xB1, 0x09,
        0x35, 0x1F, 0x7B, 0xFC, 0x01, 0x0B, 0xC6, 0x20, 0x20,
    ]

    @Test func readsTheRangeAnIPhoneWrote() throws {
        let representation = try #require(try DepthRepresentationSEI.decode(Self.applePug))
        #expect(representation.kind == .uniformDisparity)
        #expect(representation.disparityMinimum == 1.498046875)
        #expect(representation.disparityMaximum == 4.3828125)
        #expect(representation.nearestDepth == nil && representation.farthestDepth == nil)
    }

    @Test func writesTheSameBytesAnIPhoneDoes() {
        let representation = DepthRepresentation(kind: .uniformDisparity, disparityMinimum: 1.498046875, disparityMaximum: 4.3828125)
        #expect(DepthRepresentationSEI.encode(representation) == Self.applePug)
    }

    @Test(arguments: [0.01, 0.5, 1, 2.75, 100, 4096.5])
    func depthRangesSurviveTheTrip(value: Double) throws {
        let written = DepthRepresentation(kind: .uniformZ, nearestDepth: value, farthestDepth: value * 3)
        let read = try #require(try DepthRepresentationSEI.decode(DepthRepresentationSEI.encode(written)))
        #expect(read.kind == .uniformZ)
        #expect(abs(read.nearestDepth! / value - 1) < 1e-4)
        #expect(abs(read.farthestDepth! / (value * 3) - 1) < 1e-4)
    }

    @Test func aTruncatedSEIIsAnErrorNotACrash() {
        for length in 8..<Self.applePug.count {
            #expect(throws: HEIFError.self) { try DepthRepresentationSEI.decode(Array(Self.applePug.prefix(length))) }
        }
    }
}
