import CVipsShim
import Foundation
import MatteboxCore
import MatteboxRuntime

/// A contact sheet of a photo and its auxiliary images, for a person to check
/// at a glance that depth and mattes line up with the picture: the primary as
/// displayed, each auxiliary image (depth and disparity in a colour map, near
/// red, far blue), and under each one the same image laid over the primary.
package enum ContactSheet {
    /// `crop`: a region of the photo as displayed (its pixels), drawn instead of the whole photo, from
    /// every image at its own resolution, so a 12 MP photo's matte edges can be judged at full size.
    /// `gainMap`: what the photo's HDR gain map does (its reader works it out from the form it is
    /// in); under the map, the sheet draws the HDR rendition instead of an overlay.
    package static func render(_ photo: Photo, tileHeight: Int = 240, crop: Region? = nil, gainMap: GainMapRendition? = nil) throws -> PixelImage {
        var upright = try photo.displayedUpright()
        if let crop { upright = try cropped(upright, to: crop) }
        let height = max(16, tileHeight)
        let width = max(16, Int((Double(upright.primary.width) * Double(height) / Double(upright.primary.height)).rounded()))
        let primary = try ImageGeometry.resized(rgb8(upright.primary), width: width, height: height)

        var top: [(PixelImage, String)] = [
            (primary, "primary \(photo.primary.width)x\(photo.primary.height), orientation \(photo.metadata.orientation.rawValue)"
                + (crop.map { ", crop \($0.x),\($0.y) \($0.width)x\($0.height)" } ?? ""))
        ]
        // Under the primary: the colour map's legend where there is depth to read with it, else the
        // primary again, to compare the overlays beside it with. A photo with no auxiliary image has no
        // lower row at all.
        let hasDepth = upright.auxiliary[.depth] != nil || upright.auxiliary[.disparity] != nil
        var bottom: [(PixelImage, String)] = [
            hasDepth
                ? (legend(width: width, height: height), "colour map: near (red) to far (blue)")
                : (primary, "overlays of each image on the primary:")
        ]
        for role in upright.auxiliary.keys.sorted() where role != .thumbnail {
            let image = upright.auxiliary[role]!
            let info = upright.metadata.auxiliaryInfo[role]
            let isDepth = role == .depth || role == .disparity
            let view = try ImageGeometry.resized(visualize(image, role: role, depth: info?.depth), width: width, height: height)
            top.append((view, caption(role, image, info)))
            if let gainMap, role == gainMap.role {
                // What an HDR screen shows, brought down by the headroom so its brightest fits this one.
                let map = try ImageGeometry.resized(gainMap.readable(image), width: width, height: height)
                bottom.append((gainMap.applied(to: primary, gainMap: map),
                               String(format: "HDR rendition at 1/%.2f (its highlights fit SDR white)", pow(2, gainMap.headroomStops))))
                continue
            }
            bottom.append((overlay(view, on: primary, isDepth: isDepth), "\(role) over primary"))
        }
        guard bottom.count > 1 else { return try layout([(top[0].0, top[0].1 + "; no auxiliary images")], columns: 1) }
        return try layout(top + bottom, columns: top.count)
    }

    /// A region of the photo in whole pixels (the sheet's crop).
    package struct Region: Sendable, Equatable {
        package var x, y, width, height: Int
        package init(x: Int, y: Int, width: Int, height: Int) { (self.x, self.y, self.width, self.height) = (x, y, width, height) }
    }

    /// The upright photo cut to `crop` (in the primary's pixels): each auxiliary image cut to the
    /// same region scaled to its own size.
    private static func cropped(_ upright: Photo, to crop: Region) throws -> Photo {
        let primary = upright.primary
        let x = max(0, min(crop.x, primary.width - 1)), y = max(0, min(crop.y, primary.height - 1))
        let width = min(crop.width, primary.width - x), height = min(crop.height, primary.height - y)
        guard width > 0, height > 0, crop.x < primary.width, crop.y < primary.height else {
            throw MatteboxError("the crop \(crop.x),\(crop.y) \(crop.width)x\(crop.height) lies outside the \(primary.width)x\(primary.height) photo")
        }
        var result = upright
        result.primary = try ImageGeometry.crop(primary, x: x, y: y, width: width, height: height)
        for (role, image) in upright.auxiliary where role != .thumbnail {
            let sx = Double(image.width) / Double(primary.width), sy = Double(image.height) / Double(primary.height)
            let ax = Int(Double(x) * sx), ay = Int(Double(y) * sy)
            let aw = max(1, min(image.width - ax, Int((Double(width) * sx).rounded())))
            let ah = max(1, min(image.height - ay, Int((Double(height) * sy).rounded())))
            result.auxiliary[role] = try ImageGeometry.crop(image, x: ax, y: ay, width: aw, height: ah)
        }
        return result
    }

    /// One auxiliary image as the sheet's lower row draws it (depth in the colour
    /// map half over the picture, a matte dimming what it leaves out), upright, at
    /// most `longSide` pixels on its longer side: the camera app's viewer overlays.
    package static func overlay(_ photo: Photo, role: ImageRole, longSide: Int = 1024) throws -> PixelImage {
        let upright = try photo.displayedUpright()
        guard let image = upright.auxiliary[role] else { throw MatteboxError("the photo has no \(role) image") }
        let (width, height) = fitted(upright.primary, longSide: longSide)
        let primary = try ImageGeometry.resized(rgb8(upright.primary), width: width, height: height)
        let isDepth = role == .depth || role == .disparity
        let view = try ImageGeometry.resized(
            visualize(image, role: role, depth: upright.metadata.auxiliaryInfo[role]?.depth), width: width, height: height)
        return overlay(view, on: primary, isDepth: isDepth)
    }

    /// A small upright picture of the photo: its stored thumbnail when it has one (and
    /// `storedThumbnail` allows), else the primary scaled down.
    package static func thumbnail(_ photo: Photo, longSide: Int = 320, storedThumbnail: Bool = true) throws -> PixelImage {
        let upright = try photo.displayedUpright()
        let source = (storedThumbnail ? upright.auxiliary[.thumbnail] : nil) ?? upright.primary
        let (width, height) = fitted(source, longSide: longSide)
        return try ImageGeometry.resized(rgb8(source), width: width, height: height)
    }

    private static func fitted(_ image: PixelImage, longSide: Int) -> (Int, Int) {
        let scale = min(1, Double(max(16, longSide)) / Double(max(image.width, image.height)))
        return (max(1, Int((Double(image.width) * scale).rounded())), max(1, Int((Double(image.height) * scale).rounded())))
    }

    private static func caption(_ role: ImageRole, _ image: PixelImage, _ info: AuxiliaryImageInfo?) -> String {
        var text = "\(role) \(image.width)x\(image.height) \(image.format)"
        if let depth = info?.depth, let range = depth.valueRange {
            text += ", \(depth.kind) \(String(format: "%.3g", range.lowerBound))–\(String(format: "%.3g", range.upperBound))"
        }
        return text
    }

    /// Depth and disparity through the colour map; other images as they are, in RGB.
    private static func visualize(_ image: PixelImage, role: ImageRole, depth: DepthRepresentation?) throws -> PixelImage {
        guard role == .depth || role == .disparity else { return try rgb8(image) }
        // Larger disparity is nearer; larger depth is farther.
        let nearIsHigh = role == .disparity || depth.map { $0.kind != .uniformZ } == true
        let range = image.finiteRange()
        var low = range?.lowerBound ?? .infinity, high = range?.upperBound ?? -.infinity
        if image.format != .float32 {
            low = 0
            high = image.format == .uint8 ? 255 : 65535
        }
        let span = high > low ? high - low : 1
        let result = PixelImage(width: image.width, height: image.height, channels: 3, format: .uint8)
        let output = result.data.assumingMemoryBound(to: UInt8.self)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let value = image.sample(x: x, y: y)
                guard value.isFinite else { continue }
                let t = (value - low) / span
                let (r, g, b) = jet(nearIsHigh ? t : 1 - t)
                let index = (y * image.width + x) * 3
                output[index] = r
                output[index + 1] = g
                output[index + 2] = b
            }
        }
        return result
    }

    /// The jet colour map: blue (0) through cyan, yellow to red (1).
    private static func jet(_ t: Double) -> (UInt8, UInt8, UInt8) {
        func channel(_ centre: Double) -> UInt8 {
            UInt8(max(0, min(1, 1.5 - abs(4 * t - centre))) * 255)
        }
        return (channel(3), channel(2), channel(1))
    }

    private static func legend(width: Int, height: Int) -> PixelImage {
        let result = PixelImage(width: width, height: height, channels: 3, format: .uint8)
        let output = result.data.assumingMemoryBound(to: UInt8.self)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = jet(1 - Double(y) / Double(max(1, height - 1)))
                let index = (y * width + x) * 3
                (output[index], output[index + 1], output[index + 2]) = (r, g, b)
            }
        }
        return result
    }

    /// Depth: half and half. Mattes: the primary, dimmed where the matte is 0.
    private static func overlay(_ view: PixelImage, on primary: PixelImage, isDepth: Bool) -> PixelImage {
        let result = PixelImage(width: primary.width, height: primary.height, channels: 3, format: .uint8)
        let a = primary.data.assumingMemoryBound(to: UInt8.self)
        let b = view.data.assumingMemoryBound(to: UInt8.self)
        let output = result.data.assumingMemoryBound(to: UInt8.self)
        for i in 0..<(primary.width * primary.height) {
            let weight = 0.2 + 0.8 * Double(b[i * 3]) / 255
            for c in 0..<3 {
                let base = Double(a[i * 3 + c])
                output[i * 3 + c] = UInt8(isDepth ? (base + Double(b[i * 3 + c])) / 2 : base * weight)
            }
        }
        return result
    }

    /// Any image as 8-bit RGB: grey is spread, 16-bit keeps its high byte,
    /// float is clamped to 0...1, alpha is dropped.
    static func rgb8(_ image: PixelImage) throws -> PixelImage {
        image.converted(channels: 3, eightBit: true)
    }

    private static func layout(_ cells: [(PixelImage, String)], columns: Int) throws -> PixelImage {
        try Vips.start()
        var tiles = cells.map { Vips.pixels(of: $0.0) }
        let captions = cells.map { strdup($0.1) }
        defer { captions.forEach { free($0) } }
        var output = mbx_pixels()
        try captions.map { UnsafePointer($0) }.withUnsafeBufferPointer { labels in
            try Vips.call {
                mbx_vips_contact_sheet(&tiles, labels.baseAddress, Int32(cells.count), Int32(columns), &output, $0)
            }
        }
        return try Vips.image(adopting: output)
    }
}
