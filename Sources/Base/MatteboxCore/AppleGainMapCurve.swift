import Foundation

/// What an Apple HDR gain map's samples mean ("Applying Apple HDR effect to your photos"): a
/// sample is Rec. 709 encoded, and in linear light `hdr = sdr x (1 + (headroom - 1) x gain)`.
/// Why it exists: every other form (ISO 21496-1 in a `tmap` item, in Ultra HDR's APP2) and every
/// HDR rendition (the contact sheet's) is worked out from this one rule, in one place.
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
}

extension Photo {
    /// How many stops above SDR white the photo's Apple gain map reaches: as the form it was read
    /// from stated it (Ultra HDR), else as the iPhone's maker note does. Nil without a gain map,
    /// without a stated headroom, or with one too small to brighten anything (under 0.01 stops).
    package var gainMapHeadroomStops: Double? {
        guard auxiliary[.appleHDRGainMap] != nil,
            let stops = metadata.gainMap.headroomStops ?? metadata.exif?.appleHDRHeadroom?.stops, stops >= 0.01
        else { return nil }
        return stops
    }
}
