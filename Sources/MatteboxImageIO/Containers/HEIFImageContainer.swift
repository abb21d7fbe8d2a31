import Foundation
import MatteboxCore
import MatteboxHEIF

/// HEIF (HEIC): read and written by Mattebox's own HEIF code, auxiliary
/// images included; libheif codes the HEVC inside.
struct HEIFImageContainer: ImageContainer {
    let name = "heic"
    let aliases = ["heif"]
    let displayName = "HEIF"
    let fileExtension = "heic"
    let canWrite = true
    let holdsAuxiliaryImages = true
    /// As an auxiliary image with the MPEG alpha type, which libheif shows as transparency.
    let holdsAlpha = true
    /// The movie follows the HEIF in an `mpvd` box, whose 8-byte header the primary's padding covers.
    var motionPhotoPrimary: (mime: String, padding: Int)? { ("image/heic", MotionPhotoVideoBox.headerLength) }
    let maximumBitsPerSample = 12
    var defaultQuality: Int { HEIFWriteOptions.defaultQuality }

    func recognizes(_ header: [UInt8]) -> Bool { HEIFReader.recognizes(header) }

    func readPhoto(at url: URL) throws -> Photo { try HEIFReader.readPhoto(at: url) }

    func encode(_ photo: Photo, quality: Int, heif: HEIFWriteOptions, notes: inout [String: String]) throws -> Data {
        var options = heif
        options.quality = quality
        let (data, notKept) = try HEIFWriter.encodeReporting(photo, options: options)
        if !notKept.isEmpty { notes[HEIFWriter.notKeptNote] = "not kept: " + notKept.joined(separator: "; ") }
        // The `mpvd` box names itself (Samsung's readers need no XMP); a directory in the XMP was brought up to date.
        guard let movie = photo.metadata.motionPhotoMovie else { return data }
        return MotionPhotoVideoBox.appending(movie, to: data)
    }
}
