import Foundation
import MatteboxCore
import MatteboxImageOps
import MatteboxMetadata

/// Apple's HDR gain map and ISO 21496-1's (Ultra HDR's) say how far each pixel brightens in two
/// ways. Apple ("Applying Apple HDR effect to your photos"): the map's samples are Rec. 709
/// encoded, and in linear light `hdr = sdr x (1 + (headroom - 1) x gain)`. ISO 21496-1: the
/// samples, raised to 1/gamma, interpolate log2 of the boost between the map's min and max,
/// and `hdr = (sdr + baseOffset) x 2^boost - alternateOffset`. Why it exists: a photo keeps one
/// gain map (Apple's form, which HEIC carries as iPhones do) and each output says it in its own
/// form; converting the 256 possible 8-bit samples through these formulas loses at most half a
/// step of the target's scale (under 0.3% of the boost for a 3.5x headroom).
package enum GainMapForms {
    /// How much an ISO 21496-1 gain map sample (0...255) brightens at full headroom.
    package static func isoBoost(sample: Double, channel: GainMapMetadata.Channel) -> Double {
        let recovery = pow(min(max(sample / 255, 0), 1), 1 / channel.gamma)
        return pow(2, channel.gainMapMin + (channel.gainMapMax - channel.gainMapMin) * recovery)
    }

    /// An Apple gain map (8-bit grey) said as ISO 21496-1: log2 of the boost from 0 to the
    /// headroom's stops, gamma 1, no offsets (Apple's formula has none), applied in the
    /// primary's colours.
    package static func iso(fromApple map: PixelImage, headroomStops: Double) -> (map: PixelImage, metadata: GainMapMetadata) {
        let table = (0..<256).map { sample -> UInt8 in
            let stops = log2(AppleGainMapCurve.boost(sample: Double(sample), headroomStops: headroomStops))
            return UInt8(min(max((stops / headroomStops * 255).rounded(), 0), 255))
        }
        let channel = GainMapMetadata.Channel(gainMapMin: 0, gainMapMax: headroomStops, gamma: 1, baseOffset: 0, alternateOffset: 0)
        let metadata = GainMapMetadata(baseHeadroom: 0, alternateHeadroom: headroomStops, channels: [channel])
        return (mapped(map, through: table), metadata)
    }

    /// Whether Apple's form can say what an ISO 21496-1 map says: one map for all three channels
    /// that only brightens, from an SDR base.
    package static func appleCanSay(_ metadata: GainMapMetadata) -> Bool {
        !metadata.isMultichannel && metadata.channels[0].gainMapMin >= 0 && metadata.baseHeadroom <= metadata.alternateHeadroom
    }

    /// An ISO 21496-1 gain map (8-bit grey, one channel) said as Apple's, with the headroom it
    /// reaches in stops (its largest boost). Boosts below 1 (a map that darkens) become 1.
    package static func apple(fromISO map: PixelImage, metadata: GainMapMetadata) -> (map: PixelImage, headroomStops: Double) {
        let channel = metadata.channels[0]
        let stops = max(channel.gainMapMax, 0)
        let headroom = pow(2, stops)
        let table = (0..<256).map { sample -> UInt8 in
            guard headroom > 1 else { return 0 }
            let gain = (isoBoost(sample: Double(sample), channel: channel) - 1) / (headroom - 1)
            return UInt8(min(max((AppleGainMapCurve.rec709(fromLinear: min(max(gain, 0), 1)) * 255).rounded(), 0), 255))
        }
        return (mapped(map, through: table), stops)
    }

    /// What the photo's gain map does to its primary, for a picture of its HDR rendition: from
    /// ISO 21496-1's metadata for a map kept in that form (each channel's own mapping, with its
    /// offsets), else from Apple's rule and the stated headroom. Nil without a gain map, without
    /// a headroom, with metadata that cannot be read, or with an HDR base (its rendition is the
    /// primary itself).
    package static func rendition(of photo: Photo) -> GainMapRendition? {
        if photo.auxiliary[.isoGainMap] != nil {
            guard let metadata = try? UltraHDRJPEG.isoMetadata(of: photo), metadata.alternateHeadroom > metadata.baseHeadroom else { return nil }
            let channels = metadata.channels.map { channel in
                GainMapRendition.Channel(
                    boost: (0..<256).map { isoBoost(sample: Double($0), channel: channel) },
                    baseOffset: channel.baseOffset, alternateOffset: channel.alternateOffset)
            }
            return GainMapRendition(role: .isoGainMap, channels: channels, headroomStops: metadata.alternateHeadroom)
        }
        return photo.gainMapHeadroomStops.map(GainMapRendition.apple(headroomStops:))
    }

    /// What an ISO 21496-1 mapping does, for notes and listings: "one map per colour channel,
    /// 0.50x to 4.00x, for a display 2.00 stops above SDR".
    package static func summary(_ metadata: GainMapMetadata) -> String {
        let low = metadata.channels.map(\.gainMapMin).min() ?? 0, high = metadata.channels.map(\.gainMapMax).max() ?? 0
        return (metadata.isMultichannel ? "one map per colour channel" : "one map for all three channels")
            + String(format: ", %.2fx to %.2fx, full at a display %.2f stops above SDR", pow(2, low), pow(2, high), metadata.alternateHeadroom)
            + (metadata.baseHeadroom > metadata.alternateHeadroom ? String(format: " (the base is HDR, %.2f stops)", metadata.baseHeadroom) : "")
    }

    /// A map whose hdrgm mapping is from an HDR base (log2 of HDR over SDR, as hdrgm always
    /// states it) with its samples turned so `metadata` (that mapping in ISO 21496-1's form: log2
    /// of SDR over HDR, its range negated) applies: sample v becomes u = (1 - v^(1/gamma))^gamma,
    /// per channel, so `min' + (max' - min') u^(1/gamma)` is `-(min + (max - min) v^(1/gamma))`.
    /// Exact for gamma 1 (u = 255 - v); within half an 8-bit step otherwise.
    package static func turnedSamples(_ map: PixelImage, metadata: GainMapMetadata) -> PixelImage {
        let tables = metadata.channels.map { channel in
            (0..<256).map { sample -> UInt8 in
                let turned = pow(max(0, 1 - pow(Double(sample) / 255, 1 / channel.gamma)), channel.gamma)
                return UInt8(min(max((turned * 255).rounded(), 0), 255))
            }
        }
        return mapped(map.converted(channels: map.channels, eightBit: true), through: tables)
    }

    /// Each sample of an 8-bit grey image looked up in `table`.
    private static func mapped(_ map: PixelImage, through table: [UInt8]) -> PixelImage {
        mapped(map.channels == 1 && map.format == .uint8 ? map : map.converted(channels: 1, eightBit: true), through: [table])
    }

    /// Each sample of an 8-bit image looked up in its channel's table (one table serves all).
    private static func mapped(_ image: PixelImage, through tables: [[UInt8]]) -> PixelImage {
        let out = PixelImage(width: image.width, height: image.height, channels: image.channels, format: .uint8)
        let source = image.data.assumingMemoryBound(to: UInt8.self), target = out.data.assumingMemoryBound(to: UInt8.self)
        for index in 0..<(image.width * image.height * image.channels) {
            target[index] = tables[tables.count > 1 ? index % image.channels % tables.count : 0][Int(source[index])]
        }
        return out
    }
}
