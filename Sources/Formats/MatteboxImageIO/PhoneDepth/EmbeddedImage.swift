import CVipsShim
import Foundation
import MatteboxCore
import MatteboxImageOps
import MatteboxRuntime

/// An image stored inside another file's bytes (an MPF image after a JPEG's
/// scan, a base64 PNG in XMP, an item appended for Dynamic Depth), decoded by
/// libvips from memory.
enum EmbeddedImage {
    /// One channel, its sample format kept (8-bit, 16-bit or float): a depth map or a matte.
    static func grey<Bytes: Collection<UInt8>>(_ bytes: Bytes, what: String) throws -> PixelImage {
        try Vips.start()
        let copy = [UInt8](bytes)
        var pixels = mbx_pixels()
        try copy.withUnsafeBytes { raw in
            try Vips.call { mbx_vips_decode_mono_buffer(raw.baseAddress, raw.count, what, &pixels, $0) }
        }
        return try Vips.image(adopting: pixels)
    }

    /// The colour picture (8 or 16-bit RGB), as stored.
    static func colour<Bytes: Collection<UInt8>>(_ bytes: Bytes, what: String) throws -> PixelImage {
        try Vips.start()
        let copy = [UInt8](bytes)
        var decoded = mbx_decoded()
        try copy.withUnsafeBytes { raw in
            try Vips.call { mbx_vips_decode_buffer(raw.baseAddress, raw.count, what, &decoded, $0) }
        }
        mbx_vips_blob_free(&decoded.exif)
        mbx_vips_blob_free(&decoded.xmp)
        mbx_vips_blob_free(&decoded.icc)
        if decoded.alpha.data != nil { mbx_vips_pixels_free(&decoded.alpha) }
        return try Vips.image(adopting: decoded.pixels)
    }

    /// A normalised inverse-range depth map (Google's RangeInverse: 0 at Near, the
    /// maximum at Far) turned into disparity (larger is nearer), which is linear in
    /// it: `max - value`, exactly, in the image's own sample format.
    static func flipped(_ image: PixelImage) -> PixelImage {
        let out = image.copy()
        let count = image.width * image.height * image.channels
        switch image.format {
        case .uint8:
            let p = out.data.assumingMemoryBound(to: UInt8.self)
            for i in 0..<count { p[i] = 255 - p[i] }
        case .uint16:
            let p = out.data.assumingMemoryBound(to: UInt16.self)
            for i in 0..<count { p[i] = 65535 - p[i] }
        case .float32:
            let p = out.data.assumingMemoryBound(to: Float.self)
            for i in 0..<count { p[i] = 1 - p[i] }
        }
        return out
    }

    /// Google's RangeLinear depth (0 at Near, the maximum at Far) as metres: `near + v (far - near)`.
    static func linearDepth(_ image: PixelImage, near: Double, far: Double) -> PixelImage {
        let out = PixelImage(width: image.width, height: image.height, channels: 1, format: .float32)
        let p = out.data.assumingMemoryBound(to: Float.self)
        let scale: Double = image.format == .uint8 ? 1 / 255 : image.format == .uint16 ? 1 / 65535 : 1
        for y in 0..<image.height {
            for x in 0..<image.width { p[y * image.width + x] = Float(near + image.sample(x: x, y: y) * scale * (far - near)) }
        }
        return out
    }

    /// A Google depth map (GDepth or Dynamic Depth) as the role it stands for: RangeInverse (0 at
    /// Near, the maximum at Far, linear in 1/depth) flipped into disparity over 1/Far ... 1/Near;
    /// RangeLinear as metres. `source` describes it given Near and Far. Throws for Near and Far
    /// that are not 0 < Near < Far, another format, or bytes that do not decode.
    static func googleDepth<Bytes: Collection<UInt8>>(
        _ bytes: Bytes, format: String, near nearText: String?, far farText: String?, what: String,
        source: (_ near: Double, _ far: Double) -> String
    ) throws -> (ImageRole, PixelImage, AuxiliaryImageInfo) {
        guard let near = nearText.flatMap(Double.init), let far = farText.flatMap(Double.init), near > 0, far > near else {
            throw MatteboxError("\(what) has no usable Near and Far: not read")
        }
        let source = source(near, far)
        switch format.lowercased() {
        case "rangeinverse":
            let range = DepthRepresentation(kind: .uniformDisparity, disparityMinimum: 1 / far, disparityMaximum: 1 / near)
            return (.disparity, flipped(try grey(bytes, what: what)), AuxiliaryImageInfo(depth: range, source: source))
        case "rangelinear":
            let range = DepthRepresentation(kind: .uniformZ, nearestDepth: near, farthestDepth: far)
            return (.depth, linearDepth(try grey(bytes, what: what), near: near, far: far), AuxiliaryImageInfo(depth: range, source: source))
        default:
            throw MatteboxError("\(what)'s format \(format) is neither RangeInverse nor RangeLinear: not read")
        }
    }
}
