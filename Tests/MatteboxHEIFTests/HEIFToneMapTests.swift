import Foundation
import MatteboxCore
import Testing

@testable import MatteboxHEIF

/// The ISO 21496-1 tone map Mattebox makes for an Apple gain map it encoded.
struct HEIFToneMapTests {
    /// The tone map made for an Apple gain map says what its samples mean within a few percent of
    /// Apple's own rule, as iOS 18's does (its sample: gamma 0.665 at 1.42 stops).
    @Test func anAppleGainMapsCurveIsDescribedInISOForm() {
        for stops in [1.0, 1.42, 1.8, 2.3] {
            let (metadata, error) = HEIFToneMap.isoDescription(headroomStops: stops)
            #expect(error < 0.05, "\(stops) stops: \(error)")
            #expect(metadata.channels[0].gainMapMax == stops && metadata.alternateHeadroom == stops)
            #expect((0.5...1.0).contains(metadata.channels[0].gamma), "\(metadata.channels[0].gamma)")
        }
        #expect(AppleGainMapCurve.boost(sample: 255, headroomStops: 1.8) == pow(2, 1.8))
        #expect(AppleGainMapCurve.boost(sample: 0, headroomStops: 1.8) == 1)
    }
}
