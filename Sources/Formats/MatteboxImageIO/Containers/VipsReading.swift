import CVipsShim
import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxImageOps
import MatteboxMetadata
import MatteboxRuntime

/// What every format libvips decodes for Mattebox shares: pixels as stored
/// (never auto-rotated), EXIF, XMP and the ICC profile carried along, what
/// else the file held named in a note, never dropped silently. Each such
/// format is its own `VipsDecodable` container type.
protocol VipsDecodable: ImageContainer {}

/// The decoding those containers share: a file (or a JPEG's kept bytes) through
/// libvips, then the photo with its metadata adopted.
enum VipsReading {
    /// Decodes a file by its path.
    static func decodeFile(_ url: URL) throws -> mbx_decoded {
        try Vips.start()
        var decoded = mbx_decoded()
        try Vips.call { mbx_vips_decode_file(url.path, &decoded, $0) }
        return decoded
    }

    /// Decodes a file's bytes (kept as its coded origin by the caller).
    static func decode(_ bytes: [UInt8], named url: URL) throws -> mbx_decoded {
        try Vips.start()
        var decoded = mbx_decoded()
        try bytes.withUnsafeBytes { buffer in
            try Vips.call { mbx_vips_decode_buffer(buffer.baseAddress, buffer.count, url.path, &decoded, $0) }
        }
        return decoded
    }

    /// The photo libvips decoded, its metadata adopted; `unkeptNote`: whether what the
    /// file held beyond EXIF, XMP and the profile is noted (a JPEG's own segments are
    /// carried by JPEG outputs instead, and named by the others).
    static func photo(_ decoded: mbx_decoded, from url: URL, displayName: String, unkeptNote: Bool = true) throws -> Photo {
        var decoded = decoded
        let exifBytes = Vips.data(decoded.exif).map { [UInt8]($0) }
        var metadata = PhotoMetadata(
            exif: exifBytes.flatMap(ExifBlock.init), xmp: Vips.data(decoded.xmp),
            iccProfile: Vips.data(decoded.icc))
        var unkept: [String] = []
        if decoded.iptc_bytes > 0 { unkept.append("the IPTC record (\(decoded.iptc_bytes) bytes)") }
        let fields = withUnsafeBytes(of: decoded.other_fields) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if !fields.isEmpty { unkept.append("the text fields \(fields)") }
        if !unkept.isEmpty, unkeptNote {
            metadata.notes["inputMetadata"] =
                "\(unkept.joined(separator: " and ")) of the \(displayName) not kept: Mattebox carries EXIF, XMP and the colour profile"
        }
        mbx_vips_blob_free(&decoded.exif)
        mbx_vips_blob_free(&decoded.xmp)
        mbx_vips_blob_free(&decoded.icc)
        let primary = try Vips.image(adopting: decoded.pixels)
        let alpha = decoded.alpha.data == nil ? nil : try Vips.image(adopting: decoded.alpha)
        var photo = Photo(primary: primary, metadata: metadata, source: url)
        if let alpha { photo.setAuxiliary(alpha, for: .alpha) }
        return photo
    }
}

/// Formats Mattebox reads through libvips and does not write: TIFF, WebP,
/// Netpbm (PBM/PGM/PPM and PFM, Middlebury's float disparity). They differ
/// only in name and signature.
struct VipsReadOnlyContainer: VipsDecodable {
    let name: String
    let aliases: [String]
    let displayName: String
    let fileExtension: String
    private let signature: @Sendable ([UInt8]) -> Bool

    func recognizes(_ header: [UInt8]) -> Bool { signature(header) }

    func readPhoto(at url: URL) throws -> Photo {
        try VipsReading.photo(try VipsReading.decodeFile(url), from: url, displayName: displayName)
    }

    static let tiff = VipsReadOnlyContainer(
        name: "tiff", aliases: ["tif"], displayName: "TIFF", fileExtension: "tif",
        signature: { $0.starts(with: [0x49, 0x49, 0x2A, 0x00]) || $0.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) })
    static let webp = VipsReadOnlyContainer(
        name: "webp", aliases: [], displayName: "WebP", fileExtension: "webp",
        signature: { $0.count >= 12 && $0.starts(with: Array("RIFF".utf8)) && Array($0[8..<12]) == Array("WEBP".utf8) })
    static let netpbm = VipsReadOnlyContainer(
        name: "pnm", aliases: ["pfm", "ppm", "pgm"], displayName: "Netpbm (PPM, PGM, PFM)", fileExtension: "ppm",
        signature: { $0.count >= 2 && $0[0] == 0x50 && Array("123456fF".utf8).contains($0[1]) })
}
