import MatteboxCore

/// Brings an auxiliary image stored with transforms of its own into the
/// primary's stored frame, so depth and mattes stay registered pixel for pixel.
/// iPhones give every item the same transforms; this is for files that do not.
enum StoredFrame {
    static func align(_ image: PixelImage, from own: ExifOrientation, to primary: ExifOrientation) throws -> PixelImage {
        let inverse = primary.isMirrored
            ? primary
            : ExifOrientation(mirrored: false, clockwiseQuarterTurns: -primary.clockwiseQuarterTurns)
        return apply(inverse, to: apply(own, to: image))
    }

    /// Mirrors left-right (when the orientation says so), then turns clockwise.
    static func apply(_ orientation: ExifOrientation, to image: PixelImage) -> PixelImage {
        let turns = orientation.clockwiseQuarterTurns
        let swaps = turns % 2 == 1
        let width = swaps ? image.height : image.width, height = swaps ? image.width : image.height
        let result = PixelImage(width: width, height: height, channels: image.channels, format: image.format)
        let pixelBytes = image.channels * image.format.bytesPerSample
        for y in 0..<image.height {
            for x in 0..<image.width {
                let sx = orientation.isMirrored ? image.width - 1 - x : x
                let (dx, dy): (Int, Int)
                switch turns {
                case 1: (dx, dy) = (image.height - 1 - y, x)
                case 2: (dx, dy) = (image.width - 1 - x, image.height - 1 - y)
                case 3: (dx, dy) = (y, image.width - 1 - x)
                default: (dx, dy) = (x, y)
                }
                (result.data + (dy * width + dx) * pixelBytes)
                    .copyMemory(from: image.data + (y * image.width + sx) * pixelBytes, byteCount: pixelBytes)
            }
        }
        return result
    }
}
