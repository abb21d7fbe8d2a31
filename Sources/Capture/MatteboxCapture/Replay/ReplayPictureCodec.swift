import Foundation
import MatteboxCore

/// What a replay camera needs from image I/O: pictures read from files and
/// shown upright, turned, cropped and scaled to a frame, and coded as a
/// camera's MJPEG frame. A seam, so Capture holds no codec of its own and
/// links neither libvips nor libheif: the composition passes the one it has
/// (`ImageIOReplayPictureCodec` in MatteboxCaptureService).
package protocol ReplayPictureCodec: Sendable {
    /// The file extensions a folder of pictures is searched for.
    var pictureExtensions: Set<String> { get }
    /// The picture in `url`, upright (its orientation applied).
    func uprightPicture(at url: URL) throws -> PixelImage
    /// `picture` turned (or mirrored) by `transform`.
    func apply(_ transform: GeometryTransform, to picture: PixelImage) throws -> PixelImage
    /// `picture` cropped to the aspect of `width` x `height` about its centre, and scaled to that size.
    func filled(_ picture: PixelImage, width: Int, height: Int) throws -> PixelImage
    /// `picture` as a baseline JPEG, as a webcam sends an MJPEG frame.
    func jpeg(_ picture: PixelImage, quality: Int) throws -> [UInt8]
}
