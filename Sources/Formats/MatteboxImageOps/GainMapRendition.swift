import Foundation
import MatteboxCore

/// What a photo's HDR gain map does to its primary, worked out for the 256 values of an 8-bit
/// sample: per colour channel, the factor it brightens linear light by at full headroom, and the
/// offsets added before and taken after. Why it exists: the contact sheet shows what an HDR
/// screen adds for every gain map form (Apple's, ISO 21496-1's, one map or one per channel);
/// the forms differ only in these tables, which the reader of each form builds.
package struct GainMapRendition: Sendable {
    /// One colour channel: `hdr = (sdr + baseOffset) x boost[sample] - alternateOffset`, linear.
    package struct Channel: Sendable {
        package var boost: [Double]
        package var baseOffset: Double
        package var alternateOffset: Double

        package init(boost: [Double], baseOffset: Double = 0, alternateOffset: Double = 0) {
            precondition(boost.count == 256, "a boost per 8-bit sample")
            (self.boost, self.baseOffset, self.alternateOffset) = (boost, baseOffset, alternateOffset)
        }
    }

    /// The auxiliary image the map is, so the sheet draws the rendition in its column.
    package var role: ImageRole
    /// One channel for all three, or one each for red, green and blue.
    package var channels: [Channel]
    /// How many stops above SDR white the full rendition is meant for; the picture is divided
    /// by 2^headroomStops so its brightest fits an SDR screen's white.
    package var headroomStops: Double

    package init(role: ImageRole, channels: [Channel], headroomStops: Double) {
        precondition(channels.count == 1 || channels.count == 3, "one channel or three")
        (self.role, self.channels, self.headroomStops) = (role, channels, headroomStops)
    }

    /// Apple's form: a grey map, Rec. 709 encoded, `hdr = sdr x (1 + (headroom - 1) x gain)`.
    package static func apple(headroomStops: Double) -> GainMapRendition {
        let boost = (0..<256).map { AppleGainMapCurve.boost(sample: Double($0), headroomStops: headroomStops) }
        return GainMapRendition(role: .appleHDRGainMap, channels: [Channel(boost: boost)], headroomStops: headroomStops)
    }

    /// The map as the rendition reads it: 8-bit, three channels for a mapping per channel (a
    /// grey map serves all three), else grey.
    package func readable(_ map: PixelImage) -> PixelImage {
        map.converted(channels: channels.count == 3 && map.channels >= 3 ? 3 : 1, eightBit: true)
    }

    /// `primary` (8-bit sRGB-encoded RGB) brightened by `gainMap` (as `readable` makes it, the
    /// primary's size) in linear light, then divided by the headroom: a picture an SDR screen can
    /// show of what an HDR screen adds.
    package func applied(to primary: PixelImage, gainMap: PixelImage) -> PixelImage {
        let toLinear = (0..<256).map { i -> Double in
            let v = Double(i) / 255
            return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        }
        let scale = 1 / pow(2, headroomStops)
        // Back to 8-bit sRGB through a 4096-step table of linear light.
        let toSRGB = (0...4096).map { i -> UInt8 in
            let l = Double(i) / 4096
            let v = l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055
            return UInt8(min(max((v * 255).rounded(), 0), 255))
        }
        let out = PixelImage(width: primary.width, height: primary.height, channels: 3, format: .uint8)
        let source = primary.data.assumingMemoryBound(to: UInt8.self), map = gainMap.data.assumingMemoryBound(to: UInt8.self)
        let target = out.data.assumingMemoryBound(to: UInt8.self)
        let mapChannels = gainMap.channels
        for i in 0..<(primary.width * primary.height) {
            for c in 0..<3 {
                let channel = channels[channels.count == 3 ? c : 0]
                let sample = map[i * mapChannels + (mapChannels == 3 ? c : 0)]
                let hdr = (toLinear[Int(source[i * primary.channels + c])] + channel.baseOffset) * channel.boost[Int(sample)]
                    - channel.alternateOffset
                target[i * 3 + c] = toSRGB[Int((min(max(hdr * scale, 0), 1) * 4096).rounded())]
            }
        }
        return out
    }
}
