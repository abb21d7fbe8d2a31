import MatteboxCore

/// How pixels become one coded image item: the seam a new codec plugs into.
/// libheif does the coding on a one-item file; Mattebox lays its own file out,
/// so a codec is the item type it stores, the brands a file whose primary it
/// codes carries, and how it asks libheif to encode. Decoding needs no codec
/// of its own: libheif decodes whatever one-item file `ImageItemExtractor`
/// makes. HEVC (`HEVCCodec`, HEIC files) and AV1 (`AV1Codec`, AVIF files).
package protocol ItemCodec: Sendable {
    /// What people call it ("HEVC").
    var name: String { get }
    /// The item type its images are stored as ("hvc1").
    var itemType: String { get }
    /// The `ftyp` of a file whose primary it codes.
    var majorBrand: String { get }
    var compatibleBrands: [String] { get }
    /// Brands that mark a file as this codec's alone ("avif", "avis"); empty for the codec a HEIF
    /// file is taken to use when no codec's brands name it (HEVC).
    var identifyingBrands: Set<String> { get }
    /// The MIME type a Motion Photo's XMP gives a primary of this codec, or nil when no Motion
    /// Photo reader takes such a file (only HEIC ones are written with a movie).
    var motionPhotoMime: String? { get }
    /// The most bits per sample it stores (16-bit pixels are scaled down to it).
    var maximumBitDepth: Int { get }
    /// The bit depth an image wanting `wanted` bits is stored at: one the codec can write for
    /// every layout it is given (grey, colour), checked before anything reaches the encoder.
    func storedBitDepth(_ wanted: Int) -> Int
    /// Encodes 1- or 3-channel 8- or 16-bit pixels; also a thumbnail when
    /// `settings.thumbnailSize` is smaller than the image.
    func encode(_ image: PixelImage, settings: ItemCodecSettings) throws -> (image: CodedItem, thumbnail: CodedItem?)
}

extension ItemCodec {
    package func storedBitDepth(_ wanted: Int) -> Int { min(max(8, wanted), maximumBitDepth) }
}

/// Encoder settings every codec takes: quality 1...100 and a speed named as
/// x265's presets name it ("ultrafast" ... "placebo"; each codec maps it to its own).
package struct ItemCodecSettings: Sendable, Equatable {
    package var quality: Int
    package var preset: String
    package var thumbnailSize = 0
    /// 8, or more for 16-bit input (at most the codec's `maximumBitDepth`).
    package var bitDepth = 8

    package init(quality: Int, preset: String, thumbnailSize: Int = 0, bitDepth: Int = 8) {
        self.quality = quality
        self.preset = preset
        self.thumbnailSize = thumbnailSize
        self.bitDepth = bitDepth
    }
}

/// A coded image and the properties libheif wrote for it (its decoder
/// configuration, `ispe`, `colr`, `pixi`, `clap` for odd sizes), each with its
/// essential flag, ready to be placed in a file Mattebox lays out itself.
package struct CodedItem: Sendable {
    package var properties: [(box: [UInt8], essential: Bool)]
    package var data: [UInt8]
}

/// The codec the item types Mattebox decodes are coded with.
package enum ItemCodecs {
    package static let all: [any ItemCodec] = [HEVCCodec(), AV1Codec()]

    /// The codec that stores items of `type`, if Mattebox has one.
    package static func storing(_ type: String) -> (any ItemCodec)? {
        all.first { $0.itemType == type }
    }

    /// The codec a HEIF file with these `ftyp` brands is for: the one whose identifying brands it
    /// carries, else the one that has none (HEVC, whose brands many files share).
    package static func forFile(brands: [String]) -> any ItemCodec {
        all.first { !$0.identifyingBrands.isDisjoint(with: brands) } ?? all.first { $0.identifyingBrands.isEmpty }!
    }
}
