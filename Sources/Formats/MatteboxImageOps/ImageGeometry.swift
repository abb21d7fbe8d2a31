import CVipsShim
import MatteboxCore
import MatteboxRuntime

/// Pixel geometry through libvips, and the photo-wide versions that keep every
/// auxiliary image registered with the primary.
package enum ImageGeometry {
    package static func apply(_ transform: GeometryTransform, to image: PixelImage) throws -> PixelImage {
        try Vips.start()
        var input = Vips.pixels(of: image)
        var output = mbx_pixels()
        try Vips.call { mbx_vips_transform(&input, Int32(transform.rawValue), &output, $0) }
        return try Vips.image(adopting: output)
    }

    /// The image scaled to exactly `width` x `height` (the same image when it already is).
    package static func resized(_ image: PixelImage, width: Int, height: Int) throws -> PixelImage {
        if image.width == width, image.height == height { return image }
        try Vips.start()
        var input = Vips.pixels(of: image)
        var output = mbx_pixels()
        try Vips.call { mbx_vips_resize(&input, Int32(width), Int32(height), &output, $0) }
        return try Vips.image(adopting: output)
    }

    /// The image cropped to the aspect of `width` x `height` around its centre, then scaled to it.
    package static func filled(_ image: PixelImage, width: Int, height: Int) throws -> PixelImage {
        let scale = max(Double(width) / Double(image.width), Double(height) / Double(image.height))
        let cropWidth = min(image.width, Int((Double(width) / scale).rounded()))
        let cropHeight = min(image.height, Int((Double(height) / scale).rounded()))
        let cropped = cropWidth == image.width && cropHeight == image.height
            ? image
            : try crop(image, x: (image.width - cropWidth) / 2, y: (image.height - cropHeight) / 2, width: cropWidth, height: cropHeight)
        return try resized(cropped, width: width, height: height)
    }

    package static func crop(_ image: PixelImage, x: Int, y: Int, width: Int, height: Int) throws -> PixelImage {
        try Vips.start()
        var input = Vips.pixels(of: image)
        var output = mbx_pixels()
        try Vips.call {
            mbx_vips_crop(&input, Int32(x), Int32(y), Int32(width), Int32(height), &output, $0)
        }
        return try Vips.image(adopting: output)
    }
}

extension Photo {
    /// The photo as a viewer shows it: its EXIF orientation applied to the pixels
    /// (the orientation tag itself is left as it was).
    package func displayedUpright() throws -> Photo {
        var upright = self
        if metadata.orientation.isMirrored { try upright.apply(.flipHorizontal) }
        switch metadata.orientation.clockwiseQuarterTurns {
        case 1: try upright.apply(.rotate90)
        case 2: try upright.apply(.rotate180)
        case 3: try upright.apply(.rotate270)
        default: break
        }
        return upright
    }

    /// Applies the transform to the primary and every auxiliary image. Images
    /// still as decoded keep their coded origin, with the transform noted.
    package mutating func apply(_ transform: GeometryTransform) throws {
        let before = primary
        primary = try ImageGeometry.apply(transform, to: primary)
        carryOrigin(.primary, from: before, to: primary, transform)
        for (role, image) in auxiliary {
            auxiliary[role] = try ImageGeometry.apply(transform, to: image)
            carryOrigin(role, from: image, to: auxiliary[role]!, transform)
        }
    }

    private mutating func carryOrigin(_ role: ImageRole, from image: PixelImage, to result: PixelImage, _ transform: GeometryTransform) {
        guard let origin = metadata.codedOrigins[role] else { return }
        metadata.codedOrigins[role] = origin.transformed(image, by: transform.orientation, giving: result)
    }

    /// Crops to a rectangle in primary pixels; auxiliary images, whatever their
    /// resolution, are cropped to the same rectangle relative to their size.
    package mutating func crop(x: Int, y: Int, width: Int, height: Int) throws {
        guard x >= 0, y >= 0, width > 0, height > 0, x + width <= primary.width, y + height <= primary.height else {
            throw MatteboxError(
                "crop \(width)x\(height)+\(x)+\(y) lies outside the \(primary.width)x\(primary.height) primary image")
        }
        let fullWidth = Double(primary.width), fullHeight = Double(primary.height)
        for (role, image) in auxiliary {
            let sx = Double(image.width) / fullWidth, sy = Double(image.height) / fullHeight
            let left = Int((Double(x) * sx).rounded(.down)), top = Int((Double(y) * sy).rounded(.down))
            let right = min(image.width, max(left + 1, Int((Double(x + width) * sx).rounded(.up))))
            let bottom = min(image.height, max(top + 1, Int((Double(y + height) * sy).rounded(.up))))
            auxiliary[role] = try ImageGeometry.crop(image, x: left, y: top, width: right - left, height: bottom - top)
        }
        primary = try ImageGeometry.crop(primary, x: x, y: y, width: width, height: height)
        metadata.codedOrigins = [:]  // cropped pixels are encoded
    }
}
