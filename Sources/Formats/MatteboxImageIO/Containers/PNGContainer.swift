import Foundation
import MatteboxCore
import MatteboxHEIF

/// PNG through libvips: read with its alpha as the `alpha` image, written
/// with it as the fourth channel, 16-bit kept, EXIF in an `eXIf` chunk.
struct PNGContainer: VipsDecodable {
    let name = "png"
    let aliases: [String] = []
    let displayName = "PNG"
    let fileExtension = "png"
    let canWrite = true
    let holdsAlpha = true
    let maximumBitsPerSample = 16

    func recognizes(_ header: [UInt8]) -> Bool { header.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) }

    func readPhoto(at url: URL) throws -> Photo {
        try VipsReading.photo(try VipsReading.decodeFile(url), from: url, displayName: displayName)
    }

    func encode(_ photo: Photo, quality: Int, heif: HEIFWriteOptions, notes: inout [String: String]) throws -> Data {
        let exif = photo.metadata.exifForWriting(width: photo.primary.width, height: photo.primary.height)
        // The alpha image goes back in as the fourth channel.
        let pixels = photo.auxiliary[.alpha].flatMap { photo.primary.addingAlpha($0) } ?? photo.primary
        let data = try ImageEncoder.encode(pixels, as: name, quality: quality, iccProfile: photo.metadata.iccProfile, xmp: photo.metadata.xmp)
        return try ExifEmbedding.embed(exif, inPNG: data)
    }
}
