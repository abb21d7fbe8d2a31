import CHeifShim
import MatteboxCore

/// AV1 through libheif's aom encoder: `av01` items in an AVIF file. Its speed
/// comes from the x265 preset name a photo's settings carry, so `--priority`
/// and presets mean the same for both codecs.
package struct AV1Codec: ItemCodec {
    package let name = "AV1"
    package let itemType = "av01"
    package let majorBrand = "avif"
    package let compatibleBrands = ["avif", "mif1", "miaf"]
    package let maximumBitDepth = 12
    package let identifyingBrands: Set<String> = ["avif", "avis"]
    package let motionPhotoMime: String? = nil

    package init() {}

    /// 8 bits, or 12 for anything deeper. libheif 1.15 signals every image above 8 bits as AV1's
    /// Professional profile, which at 10 bits holds 4:2:2 chroma only: libaom aborts the whole
    /// process on 10-bit 4:2:0 or 4:4:4 colour (an assertion in write_color_config) and fails on
    /// 10-bit grey. At 12 bits that profile takes every layout, and a 10-bit image keeps every bit.
    package func storedBitDepth(_ wanted: Int) -> Int { wanted > 8 ? 12 : 8 }

    package func encode(_ image: PixelImage, settings: ItemCodecSettings) throws -> (image: CodedItem, thumbnail: CodedItem?) {
        var settings = settings
        settings.bitDepth = storedBitDepth(settings.bitDepth)
        return try Libheif.encode(
            image, settings: settings, compression: Int32(MBX_HEIF_AV1), preset: nil, speed: Self.speed(for: settings.preset))
    }

    /// aom's speed (0 slowest ... 9 fastest) for an x265 preset name. Measured on
    /// a 12 MP photo at quality 75 with heif-enc on 2 cores: speed 9 0.4 s, 7 1.0 s, 5 5.7 s.
    static func speed(for preset: String) -> Int32 {
        switch preset {
        case "ultrafast", "superfast": return 9
        case "veryfast", "faster": return 8
        case "fast": return 7
        case "medium": return 6
        case "slow": return 5
        default: return 4
        }
    }
}
