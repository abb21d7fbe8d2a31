import Foundation
import MatteboxCore
import MatteboxTestSupport

/// Photos with depth and mattes made by the tests, and how close two images are.
enum TestPhotos {
    /// A 256x192 pattern with EXIF, XMP, float disparity, three mattes and a vendor image.
    static func portrait(orientation: Int = 6) -> Photo {
        var metadata = PhotoMetadata(exif: ExifBlock.empty(), xmp: Data(xmpPacket.utf8), iccProfile: nil)
        metadata.orientation = ExifOrientation(orientation)!
        var photo = Photo(primary: smooth(width: 256, height: 192), metadata: metadata)
        let disparity = PixelImage(width: 64, height: 48, channels: 1, format: .float32)
        for y in 0..<48 {
            for x in 0..<64 {
                disparity.data.storeBytes(
                    of: Float(0.5 + 3.5 * Double(x) / 63), toByteOffset: (y * 64 + x) * 4, as: Float.self)
            }
        }
        photo.setAuxiliary(disparity, for: .disparity)
        photo.setAuxiliary(TestImages.matte(width: 128, height: 96), for: .portraitMatte)
        photo.setAuxiliary(TestImages.matte(width: 128, height: 96), for: .hairMatte)
        photo.setAuxiliary(TestImages.matte(width: 128, height: 96), for: .skinMatte)
        photo.setAuxiliary(TestImages.matte(width: 32, height: 24), for: "com.example.normals")
        return photo
    }

    /// A photo-like RGB image: smooth gradients and a soft disc, what HEVC is built for.
    static func smooth(width: Int, height: Int) -> PixelImage {
        let image = PixelImage(width: width, height: height, channels: 3, format: .uint8)
        let pixels = image.data.assumingMemoryBound(to: UInt8.self)
        for y in 0..<height {
            for x in 0..<width {
                let dx = Double(x - width / 2), dy = Double(y - height / 2)
                let disc = max(0, 1 - (dx * dx + dy * dy).squareRoot() / Double(height / 2))
                let index = (y * width + x) * 3
                pixels[index] = UInt8(40 + 180 * Double(x) / Double(width))
                pixels[index + 1] = UInt8(40 + 180 * Double(y) / Double(height))
                pixels[index + 2] = UInt8(30 + 200 * disc)
            }
        }
        return image
    }

    static let xmpPacket = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
        <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:CreatorTool="Mattebox tests"/>\
        </rdf:RDF></x:xmpmeta>
        """

    /// Peak signal-to-noise ratio in dB over all samples of two same-shaped 8-bit images.
    static func psnr(_ a: PixelImage, _ b: PixelImage) -> Double {
        precondition(a.width == b.width && a.height == b.height && a.channels == b.channels)
        let count = a.width * a.height * a.channels
        let x = a.data.assumingMemoryBound(to: UInt8.self), y = b.data.assumingMemoryBound(to: UInt8.self)
        var sum = 0.0
        for i in 0..<count {
            let d = Double(x[i]) - Double(y[i])
            sum += d * d
        }
        let mse = sum / Double(count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }
}
