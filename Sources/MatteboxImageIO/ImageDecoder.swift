import CVipsShim
import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxRuntime

/// Reads photos from files into a Photo: pixels as stored, not auto-rotated,
/// with EXIF, XMP and ICC profile carried along. HEIF files go to the HEIF
/// reader, which also brings their depth and mattes; everything else (JPEG,
/// PNG, TIFF, WebP, anything libvips loads) is read by libvips.
public enum ImageDecoder {
    public static func decodePhoto(at url: URL) throws -> Photo {
        try InputFile.checkReadable(url)
        if HEIFReader.isHEIF(at: url) { return try HEIFReader.readPhoto(at: url) }
        try Vips.start()
        var decoded = mbx_decoded()
        try Vips.call { mbx_vips_decode_file(url.path, &decoded, $0) }
        let exifBytes = Vips.data(decoded.exif).map { [UInt8]($0) }
        var metadata = PhotoMetadata(
            exif: exifBytes.flatMap(ExifBlock.init), xmp: Vips.data(decoded.xmp),
            iccProfile: Vips.data(decoded.icc))
        let loader = withUnsafeBytes(of: decoded.loader) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if loader.hasPrefix("heifload") {
            // HEIF-family files the HEIF reader leaves to libvips (AVIF): libheif
            // applies irot/imir while decoding, so the pixels are already upright.
            metadata.orientation = .up
        }
        mbx_vips_blob_free(&decoded.exif)
        mbx_vips_blob_free(&decoded.xmp)
        mbx_vips_blob_free(&decoded.icc)
        let primary = try Vips.image(adopting: decoded.pixels)
        return Photo(primary: primary, metadata: metadata, source: url)
    }

    /// Reads a single-channel image (a depth map or a matte) keeping its sample
    /// format: 8-bit, 16-bit or float.
    public static func decodeAuxiliaryImage(at url: URL) throws -> PixelImage {
        try Vips.start()
        try InputFile.checkReadable(url)
        var pixels = mbx_pixels()
        try Vips.call { mbx_vips_decode_mono_file(url.path, &pixels, $0) }
        return try Vips.image(adopting: pixels)
    }
}
