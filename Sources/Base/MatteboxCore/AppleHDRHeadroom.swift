import Foundation

/// How far an iPhone photo's HDR rendition may rise above SDR white, from the
/// two numbers of Apple's maker note (tags 33 and 48) by the rule Apple
/// documents in "Applying Apple HDR effect to your photos": a number of stops,
/// and the headroom 2^stops (at least 1). Without tag 48 (older iOS) it is
/// taken as 0, which the rule's first branch then reads.
package struct AppleHDRHeadroom: Sendable, Codable, Equatable {
    /// Maker note tag 33 (ExifTool's HDRHeadroom) and tag 48 (HDRGain), as stored.
    package var makerNote33: Double
    package var makerNote48: Double?

    package init(makerNote33: Double, makerNote48: Double?) {
        self.makerNote33 = makerNote33
        self.makerNote48 = makerNote48
    }

    /// The gain map's strength in stops (factors of 2), never below 0.
    package var stops: Double {
        let gain = makerNote48 ?? 0
        let stops: Double
        if makerNote33 < 1 {
            stops = gain <= 0.01 ? -20 * gain + 1.8 : -0.101 * gain + 1.601
        } else {
            stops = gain <= 0.01 ? -70 * gain + 3 : -0.303 * gain + 2.303
        }
        return max(stops, 0)
    }

    /// The ratio of the HDR rendition's brightest white to SDR white.
    package var headroom: Double { pow(2, stops) }

    private enum CodingKeys: String, CodingKey { case makerNote33, makerNote48, stops, headroom }

    /// `--json` carries the computed stops and headroom beside the stored numbers.
    package func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(makerNote33, forKey: .makerNote33)
        try container.encode(makerNote48, forKey: .makerNote48)
        try container.encode(stops, forKey: .stops)
        try container.encode(headroom, forKey: .headroom)
    }

    package init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        makerNote33 = try container.decode(Double.self, forKey: .makerNote33)
        makerNote48 = try container.decodeIfPresent(Double.self, forKey: .makerNote48)
    }
}
