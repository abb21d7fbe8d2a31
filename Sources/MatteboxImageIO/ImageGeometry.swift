import CVipsShim
import MatteboxCore

/// A rotation or mirror of a whole image. Raw values match `mbx_transform`.
public enum GeometryTransform: Int, Sendable, CaseIterable {
    case rotate90 = 1
    case rotate180 = 2
    case rotate270 = 3
    case flipHorizontal = 4
    case flipVertical = 5

    public var swapsDimensions: Bool { self == .rotate90 || self == .rotate270 }
}

/// Pixel geometry through libvips, and the photo-wide versions that keep every
/// auxiliary image registered with the primary.
public enum ImageGeometry {
    public static func apply(_ transform: GeometryTransform, to image: PixelImage) throws -> PixelImage {
        try Vips.start()
        var input = Vips.pixels(of: image)
        var output = mbx_pixels()
        try Vips.call { mbx_vips_transform(&input, Int32(transform.rawValue), &output, $0) }
        return try Vips.image(adopting: output)
    }

    public static func crop(_ image: PixelImage, x: Int, y: Int, width: Int, height: Int) throws -> PixelImage {
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
    /// Applies the transform to the primary and every auxiliary image.
    public mutating func apply(_ transform: GeometryTransform) throws {
        primary = try ImageGeometry.apply(transform, to: primary)
        for (role, image) in auxiliary {
            auxiliary[role] = try ImageGeometry.apply(transform, to: image)
        }
    }

    /// Crops to a rectangle in primary pixels; auxiliary images, whatever their
    /// resolution, are cropped to the same rectangle relative to their size.
    public mutating func crop(x: Int, y: Int, width: Int, height: Int) throws {
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
    }
}
