import CHeifShim
import MatteboxCore

/// HEVC through libheif's x265 encoder: `hvc1` items in a HEIC file, as
/// iPhones write them; the default codec.
package struct HEVCCodec: ItemCodec {
    package let name = "HEVC"
    package let itemType = "hvc1"
    package let majorBrand = "heic"
    package let compatibleBrands = ["mif1", "heic"]
    package let maximumBitDepth = 12
    package let identifyingBrands: Set<String> = []
    package let motionPhotoMime: String? = "image/heic"

    package init() {}

    package func encode(_ image: PixelImage, settings: ItemCodecSettings) throws -> (image: CodedItem, thumbnail: CodedItem?) {
        try Libheif.encode(image, settings: settings, compression: Int32(MBX_HEIF_HEVC), preset: settings.preset, speed: -1)
    }
}
