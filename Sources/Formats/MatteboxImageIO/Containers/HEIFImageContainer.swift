import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxMetadata

/// HEIF files, read and written by Mattebox's own HEIF code, auxiliary images
/// included; libheif codes the images inside. One value per codec: HEIC
/// (HEVC, as iPhones write) and AVIF (AV1), the same layout either way.
struct HEIFImageContainer: ImageContainer {
    let name: String
    let aliases: [String]
    let displayName: String
    let fileExtension: String
    let codec: any ItemCodec
    var itemCodec: (any ItemCodec)? { codec }
    let canWrite = true
    let holdsAuxiliaryImages = true
    /// As an auxiliary image with the MPEG alpha type, which libheif shows as transparency.
    let holdsAlpha = true
    var maximumBitsPerSample: Int { codec.maximumBitDepth }
    /// Each codec's own scale: HEVC 75, AV1 90 (below).
    let defaultQuality: Int

    static let heic = HEIFImageContainer(
        name: "heic", aliases: ["heif"], displayName: "HEIF", fileExtension: "heic", codec: HEVCCodec(),
        defaultQuality: HEIFWriteOptions.defaultQuality)
    /// Quality 90: aom's scale is not x265's. On a 12 MP iPhone photo (3024x4032) AVIF at 75 is 43.4 dB
    /// PSNR and smooths away fabric grain; at 90 47.8 dB in 972 KB, the grain kept (HEIC at 75: 52.7 dB
    /// in 2.4 MB); crops in test-artifacts/avif.
    static let avif = HEIFImageContainer(
        name: "avif", aliases: [], displayName: "AVIF", fileExtension: "avif", codec: AV1Codec(), defaultQuality: 90)

    /// The movie follows the file in an `mpvd` box, whose 8-byte header the primary's padding covers,
    /// for a codec Motion Photo readers take (HEIC); AVIF carries none.
    var motionPhotoPrimary: (mime: String, padding: Int)? {
        codec.motionPhotoMime.map { ($0, MotionPhotoVideoBox.headerLength) }
    }

    /// A HEIF file whose brands name this container's codec (AVIF's own brands; HEIC for the rest).
    func recognizes(_ header: [UInt8]) -> Bool {
        HEIFReader.recognizes(header)
            && ItemCodecs.forFile(brands: FileSignature.ftypBrands(header)).itemType == codec.itemType
    }

    func readPhoto(at url: URL) throws -> Photo { try HEIFReader.readPhoto(at: url) }

    func encode(_ photo: Photo, quality: Int, heif: HEIFWriteOptions, notes: inout [String: String]) throws -> Data {
        var options = heif
        options.quality = quality
        options.codec = codec
        // What an Ultra HDR input's XMP said of the JPEG's gain map item does not describe a HEIF file
        // (its gain map is an image item here, stated by the tone map or Apple's type).
        var photo = photo
        photo.metadata.xmp = photo.metadata.xmp.map(UltraHDRXMP.withoutDescription)
        let (data, notKept) = try HEIFWriter.encodeReporting(photo, options: options)
        if !notKept.isEmpty { notes[HEIFWriter.notKeptNote] = "not kept: " + notKept.joined(separator: "; ") }
        // The `mpvd` box names itself (Samsung's readers need no XMP); a directory in the XMP was brought up to date.
        guard let movie = photo.metadata.motionPhotoMovie, motionPhotoPrimary != nil else { return data }
        return MotionPhotoVideoBox.appending(movie, to: data)
    }
}
