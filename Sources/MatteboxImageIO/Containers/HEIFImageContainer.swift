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
    let maximumBitsPerSample = 12
    var defaultQuality: Int { HEIFWriteOptions.defaultQuality }

    func recognizes(_ header: [UInt8]) -> Bool { HEIFReader.recognizes(header) }

    func readPhoto(at url: URL) throws -> Photo { try HEIFReader.readPhoto(at: url) }

    func encode(_ photo: Photo, quality: Int, heif: HEIFWriteOptions, notes: inout [String: String]) throws -> Data {
        var options = heif
        options.quality = quality
        let (data, notKept) = try HEIFWriter.encodeReporting(photo, options: options)
        if !notKept.isEmpty { notes[HEIFWriter.notKeptNote] = "not kept: " + notKept.joined(separator: "; ") }
        return data
    }
}
