import CVipsShim
import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxImageOps
import MatteboxMetadata
import MatteboxRuntime

/// Encodes a Photo as the container `format` names (HEIF with all its
/// auxiliary images, JPEG or PNG with the primary alone, EXIF brought up to
/// date), and bare pixels (an auxiliary image, a contact sheet) through libvips.
package enum ImageEncoder {
    package static func encode(
        _ photo: Photo, as format: OutputFormat, quality: Int = 92, heif: HEIFWriteOptions = HEIFWriteOptions()
    ) throws -> Data {
        var notes: [String: String] = [:]
        return try encode(photo, as: format, quality: quality, heif: heif, notes: &notes)
    }

    /// The same, adding to `notes` what the file could not keep of its input.
    package static func encode(
        _ photo: Photo, as format: OutputFormat, quality: Int, heif: HEIFWriteOptions, notes: inout [String: String]
    ) throws -> Data {
        var photo = photo
        if let movie = photo.metadata.motionPhotoMovie {
            if let primary = format.container.motionPhotoPrimary {
                // The directory describes this file: its primary's type and the movie it carries.
                photo.metadata.xmp = photo.metadata.xmp.map {
                    MotionPhotoXMP.describing($0, primaryMime: primary.mime, padding: primary.padding, movieLength: movie.count)
                }
            } else {
                // The movie stays behind (noted by `limitations`): the XMP must stop claiming it.
                photo.metadata.xmp = photo.metadata.xmp.map(MotionPhotoXMP.notAMotionPhoto)
                photo.metadata.motionPhotoMovie = nil
            }
        } else if let xmp = photo.metadata.xmp, MotionPhotoXMP.claimsAMovie(xmp) {
            // The input claimed a movie that could not be read (noted when it was read): neither does this file.
            photo.metadata.xmp = MotionPhotoXMP.notAMotionPhoto(xmp)
        }
        if format != .jpeg {
            // Only a JPEG carries an Ultra HDR gain map after its primary (elsewhere it is an image of the file's own).
            photo.metadata.xmp = photo.metadata.xmp.map(UltraHDRXMP.withoutDescription)
        }
        return try format.container.encode(photo, quality: quality, heif: heif, notes: &notes)
    }

    /// Encodes bare pixels as JPEG or PNG.
    package static func encode(
        _ image: PixelImage, as format: OutputFormat, quality: Int = 92, iccProfile: Data? = nil, xmp: Data? = nil
    ) throws -> Data {
        try encode(image, as: format.rawValue, quality: quality, iccProfile: iccProfile, xmp: xmp)
    }

    /// libvips' encoder for `saver` ("jpeg" or "png").
    static func encode(
        _ image: PixelImage, as saver: String, quality: Int, iccProfile: Data?, xmp: Data?
    ) throws -> Data {
        try Vips.start()
        var pixels = Vips.pixels(of: image)
        var output = mbx_blob()
        try withBlob(iccProfile) { icc in
            try withBlob(xmp) { xmpBlob in
                try Vips.call { mbx_vips_encode(&pixels, saver, Int32(quality), icc, xmpBlob, &output, $0) }
            }
        }
        defer { mbx_vips_blob_free(&output) }
        guard let data = Vips.data(output) else { throw MatteboxError("libvips produced an empty \(saver)") }
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
