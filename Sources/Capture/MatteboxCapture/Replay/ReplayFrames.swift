import Foundation
import MatteboxCore
import MatteboxRuntime
import Synchronization

/// Still pictures played as a camera's frames, the way libcamera's virtual
/// cameras play JPEG files: each picture is shown upright, cropped to the
/// frame's aspect, scaled to its size, and sent as a camera sends it (a real
/// JPEG for MJPEG, packed 4:2:2 for YUYV), with the camera's controls applied
/// (`FrameLook`). Each picture is rendered once per format, size and look, when first
/// shown; renderings for looks no longer in use are dropped.
package final class ReplayFrames: EmulatedFrameSource, Sendable {
    private struct Key: Hashable {
        var fourcc: FourCC
        var size: FrameSize
        var look: FrameLook
        var picture: Int
    }

    private let pictures: [PixelImage]
    private let codec: any ReplayPictureCodec
    /// How many consecutive frames show the same picture.
    package let framesPerPicture: Int
    /// Renderings made so far; a lock that never waits, so the compiler checks it.
    private let renderings = Mutex<[Key: [UInt8]]>([:])

    /// `sensorRotation`: the camera claims a sensor mounted at this many degrees,
    /// so pictures are sent turned clockwise by it (turning them back makes them upright).
    package init(pictures: [PixelImage], codec: any ReplayPictureCodec, framesPerPicture: Int = 1, sensorRotation: Int = 0) {
        precondition(!pictures.isEmpty, "a replay needs at least one picture")
        let turn: GeometryTransform? = [90: .rotate90, 180: .rotate180, 270: .rotate270][((sensorRotation % 360) + 360) % 360]
        self.pictures = pictures.map { picture in
            let rgb = picture.converted(channels: 3, eightBit: true)
            return turn.flatMap { try? codec.apply($0, to: rgb) } ?? rgb
        }
        self.codec = codec
        self.framesPerPicture = max(1, framesPerPicture)
    }

    /// Pictures from image files, or from every image in a folder (sorted by name).
    package convenience init(
        contentsOf urls: [URL], codec: any ReplayPictureCodec, framesPerPicture: Int = 1, sensorRotation: Int = 0
    ) throws {
        var files: [URL] = []
        for url in urls {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else {
                throw MatteboxError("\(url.path): no such file or folder for a replay camera")
            }
            if isFolder.boolValue {
                let names = try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
                files += names.filter { codec.pictureExtensions.contains(($0 as NSString).pathExtension.lowercased()) }
                    .map { url.appendingPathComponent($0) }
            } else {
                files.append(url)
            }
        }
        guard !files.isEmpty else {
            throw MatteboxError("\(urls.map(\.path).joined(separator: ", ")): no images for a replay camera")
        }
        let pictures = try files.map { try codec.uprightPicture(at: $0) }
        self.init(pictures: pictures, codec: codec, framesPerPicture: framesPerPicture, sensorRotation: sensorRotation)
    }

    /// Colour bars with a bright band that moves a step per picture, for a
    /// camera that works with no files at all.
    package static func colourBars(pictures count: Int = 8, codec: any ReplayPictureCodec) -> ReplayFrames {
        let bars: [(UInt8, UInt8, UInt8)] = [
            (235, 235, 235), (235, 235, 16), (16, 235, 235), (16, 235, 16), (235, 16, 235), (235, 16, 16), (16, 16, 235),
        ]
        let width = 640, height = 480
        let images = (0..<count).map { step -> PixelImage in
            let image = PixelImage(width: width, height: height, channels: 3, format: .uint8)
            let pixels = image.data.assumingMemoryBound(to: UInt8.self)
            let band = step * height / count
            for y in 0..<height {
                for x in 0..<width {
                    let colour = y >= band && y < band + height / count ? (255, 255, 255) : bars[x * bars.count / width]
                    let offset = (y * width + x) * 3
                    (pixels[offset], pixels[offset + 1], pixels[offset + 2]) = colour
                }
            }
            return image
        }
        return ReplayFrames(pictures: images, codec: codec, framesPerPicture: 15)
    }

    package func payload(frame: Int, format: StreamFormat, look: FrameLook) throws -> [UInt8] {
        let key = Key(fourcc: format.fourcc, size: format.size, look: look, picture: (frame / framesPerPicture) % pictures.count)
        return try renderings.withLock { renderings in
            if let rendered = renderings[key] { return rendered }
            if look != .natural { renderings = renderings.filter { $0.key.look == .natural || $0.key.look == look } }
            let rendered = try render(pictures[key.picture], as: key)
            renderings[key] = rendered
            return rendered
        }
    }

    private func render(_ picture: PixelImage, as key: Key) throws -> [UInt8] {
        let image = try codec.filled(picture, width: key.size.width, height: key.size.height)
        key.look.apply(to: image)
        switch key.fourcc {
        case .mjpeg, .jpeg:
            return try codec.jpeg(image, quality: 90)
        case .yuyv:
            return Self.yuyv(image)
        default:
            throw MatteboxError("replay cameras send MJPEG or YUYV, not \(key.fourcc)")
        }
    }

    /// Packed YUYV 4:2:2 with BT.601 limited-range coefficients, as webcams send.
    static func yuyv(_ image: PixelImage) -> [UInt8] {
        let rgb = image.data.assumingMemoryBound(to: UInt8.self)
        let width = image.width - image.width % 2
        var out = [UInt8](repeating: 0, count: width * image.height * 2)
        func luma(_ r: Int, _ g: Int, _ b: Int) -> UInt8 { UInt8(clamping: (66 * r + 129 * g + 25 * b + 128) >> 8 + 16) }
        for y in 0..<image.height {
            for x in stride(from: 0, to: width, by: 2) {
                let p = (y * image.width + x) * 3
                let (r0, g0, b0) = (Int(rgb[p]), Int(rgb[p + 1]), Int(rgb[p + 2]))
                let (r1, g1, b1) = (Int(rgb[p + 3]), Int(rgb[p + 4]), Int(rgb[p + 5]))
                let (r, g, b) = ((r0 + r1) / 2, (g0 + g1) / 2, (b0 + b1) / 2)
                let o = (y * width + x) * 2
                out[o] = luma(r0, g0, b0)
                out[o + 1] = UInt8(clamping: (-38 * r - 74 * g + 112 * b + 128) >> 8 + 128)
                out[o + 2] = luma(r1, g1, b1)
                out[o + 3] = UInt8(clamping: (112 * r - 94 * g - 18 * b + 128) >> 8 + 128)
            }
        }
        return out
    }
}
