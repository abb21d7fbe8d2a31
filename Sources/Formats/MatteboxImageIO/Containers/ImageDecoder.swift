import CVipsShim
import Foundation
import MatteboxCore
import MatteboxImageOps
import MatteboxRuntime

/// Reads photos from files into a Photo through the container the file's
/// first bytes name (`ImageContainers`): pixels as stored, not auto-rotated,
/// with metadata and, for HEIF, depth and mattes.
package enum ImageDecoder {
    package static func decodePhoto(at url: URL) throws -> Photo {
        try InputFile.checkReadable(url)
        let container = try ImageContainers.reader(for: url)
        var photo = try container.readPhoto(at: url)
        photo.metadata.inputFormat = container.name
        return photo
    }

    /// The width and height of the picture in a file, read from its header alone (libvips; HEIF
    /// through its libheif loader); nil when libvips cannot tell, or the file is no regular file
    /// (a FIFO would block the read). For estimates, not decoding.
    package static func pictureSize(at url: URL) -> (width: Int, height: Int)? {
        guard (try? InputFile.checkReadable(url)) != nil, (try? Vips.start()) != nil else { return nil }
        var width: Int32 = 0, height: Int32 = 0
        guard (try? Vips.call({ mbx_vips_header_size(url.path, &width, &height, $0) })) != nil, width > 0, height > 0 else { return nil }
        return (Int(width), Int(height))
    }

    /// Reads a single-channel image (a depth map or a matte) keeping its sample
    /// format: 8-bit, 16-bit or float.
    package static func decodeAuxiliaryImage(at url: URL) throws -> PixelImage {
        try Vips.start()
        try InputFile.checkReadable(url)
        let container = try ImageContainers.reader(for: url)
        guard container is any VipsDecodable else {
            // Formats libvips does not read (BMP): decode, then keep one channel.
            return try container.readPhoto(at: url).primary.converted(channels: 1, eightBit: false)
        }
        var pixels = mbx_pixels()
        try Vips.call { mbx_vips_decode_mono_file(url.path, &pixels, $0) }
        return try Vips.image(adopting: pixels)
    }
}
