import Foundation

/// What an Apple HDR gain map's samples mean ("Applying Apple HDR effect to your photos"): a
/// sample is Rec. 709 encoded, and in linear light `hdr = sdr x (1 + (headroom - 1) x gain)`.
/// Why it exists: every other form (ISO 21496-1 in a `tmap` item, in Ultra HDR's APP2) is
/// worked out from this one rule, in one place.
package enum AppleGainMapCurve {
    /// Rec. 709's inverse OETF, from an encoded sample (0...1) to linear light.
    package static func linear(fromRec709 value: Double) -> Double {
        value < 0.081 ? value / 4.5 : pow((value + 0.099) / 1.099, 1 / 0.45)
    }

    /// Rec. 709's OETF, from linear light (0...1) to an encoded sample.
    package static func rec709(fromLinear value: Double) -> Double {
        value < 0.018 ? 4.5 * value : 1.099 * pow(value, 0.45) - 0.099
    }

    /// How much a sample (0...255) brightens at full headroom (2^stops).
    package static func boost(sample: Double, headroomStops: Double) -> Double {
        1 + (pow(2, headroomStops) - 1) * linear(fromRec709: min(max(sample / 255, 0), 1))
    }

    /// ISO 21496-1 metadata that describes an Apple map's own samples, as iOS 18 writes beside
    /// them: log2 boost from 0 to the headroom's stops, no offsets, and the gamma that best fits
    /// Apple's curve (the largest relative error of the boost over the 256 samples is returned:
    /// about 3% at 1.8 stops; iOS 18's own fit on its sample is alike).
    package static func isoDescription(headroomStops stops: Double) -> (metadata: GainMapMetadata, largestError: Double) {
        let exact = (0..<256).map { boost(sample: Double($0), headroomStops: stops) }
        func largestError(_ gamma: Double) -> Double {
            (0..<256).reduce(0) { worst, sample in
                let iso = pow(2, stops * pow(Double(sample) / 255, 1 / gamma))
                return max(worst, abs(iso - exact[sample]) / exact[sample])
            }
        }
        // The error is unimodal in gamma: a golden-section search over 0.2...2.
        var (low, high) = (0.2, 2.0)
        let ratio = (sqrt(5) - 1) / 2
        for _ in 0..<40 {
            let a = high - ratio * (high - low), b = low + ratio * (high - low)
            if largestError(a) < largestError(b) { high = b } else { low = a }
        }
        let gamma = (low + high) / 2
        let channel = GainMapMetadata.Channel(gainMapMin: 0, gainMapMax: stops, gamma: gamma, baseOffset: 0, alternateOffset: 0)
        return (GainMapMetadata(baseHeadroom: 0, alternateHeadroom: stops, channels: [channel]), largestError(gamma))
    }
}
