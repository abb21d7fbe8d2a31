import CVipsShim
import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxRuntime

/// The file formats Mattebox writes photos as. Only HEIF keeps auxiliary
/// images inside the file; JPEG and PNG carry the primary alone.
public enum OutputFormat: String, Sendable, CaseIterable, Codable {
    case jpeg, png, heic

    /// The quality used when none is asked for.
    public var defaultQuality: Int { self == .heic ? HEIFWriteOptions.defaultQuality : 92 }

    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .heic: return "heic"
        }
    }
}

/// Encodes a Photo: HEIF with all its auxiliary images through the HEIF
/// writer, or the primary alone as JPEG/PNG with libvips, embedding EXIF, XMP
/// and ICC profile with the EXIF orientation and dimensions brought up to date.
public enum ImageEncoder {
    public static func encode(
        _ photo: Photo, as format: OutputFormat, quality: Int = 92, heif: HEIFWriteOptions = HEIFWriteOptions()
    ) throws -> Data {
        switch format {
        case .heic:
            var options = heif
            options.quality = quality
            return try HEIFWriter.encode(photo, options: options)
        case .jpeg, .png:
            let data = try encode(
                photo.primary, as: format, quality: quality, iccProfile: photo.metadata.iccProfile,
                xmp: photo.metadata.xmp)
            // No EXIF in, no EXIF out: libvips' own default block is replaced or removed.
            let exif = photo.metadata.exifForWriting(width: photo.primary.width, height: photo.primary.height)
            return format == .jpeg
                ? try ExifEmbedding.embed(exif, inJPEG: data) : try ExifEmbedding.embed(exif, inPNG: data)
        }
    }

    /// Encodes bare pixels (an auxiliary image, a contact sheet) as JPEG or PNG.
    public static func encode(
        _ image: PixelImage, as format: OutputFormat, quality: Int = 92, iccProfile: Data? = nil, xmp: Data? = nil
    ) throws -> Data {
        try Vips.start()
        var pixels = Vips.pixels(of: image)
        var output = mbx_blob()
        try withBlob(iccProfile) { icc in
            try withBlob(xmp) { xmpBlob in
                try Vips.call { mbx_vips_encode(&pixels, format.rawValue, Int32(quality), icc, xmpBlob, &output, $0) }
            }
        }
        defer { mbx_vips_blob_free(&output) }
        guard let data = Vips.data(output) else { throw MatteboxError("libvips produced an empty \(format.rawValue)") }
        return data
    }

    private static func withBlob(_ data: Data?, _ body: (UnsafePointer<mbx_blob>?) throws -> Void) throws {
        guard let data, !data.isEmpty else { return try body(nil) }
        try data.withUnsafeBytes { buffer in
            var blob = mbx_blob(data: UnsafeMutableRawPointer(mutating: buffer.baseAddress), size: buffer.count)
            try body(&blob)
        }
    }
}
