import Foundation
import MatteboxCapture
import MatteboxCore
import MatteboxImageIO
import MatteboxImageOps

/// Replay cameras' pictures through Mattebox's image I/O: any photo format it
/// reads (shown upright), libvips for turning, cropping and scaling, and its
/// JPEG encoder for MJPEG frames. The composition hands it to
/// `ReplayCameraConfig.makeCameras`, so Capture itself holds no codec.
package struct ImageIOReplayPictureCodec: ReplayPictureCodec {
    package init() {}

    package var pictureExtensions: Set<String> { ImageContainers.photoExtensions }

    package func uprightPicture(at url: URL) throws -> PixelImage {
        try ImageDecoder.decodePhoto(at: url).displayedUpright().primary
    }

    package func apply(_ transform: GeometryTransform, to picture: PixelImage) throws -> PixelImage {
        try ImageGeometry.apply(transform, to: picture)
    }

    package func filled(_ picture: PixelImage, width: Int, height: Int) throws -> PixelImage {
        try ImageGeometry.filled(picture, width: width, height: height)
    }

    package func jpeg(_ picture: PixelImage, quality: Int) throws -> [UInt8] {
        [UInt8](try ImageEncoder.encode(picture, as: .jpeg, quality: quality))
    }
}
