import CVipsShim
import Foundation
import MatteboxCore
import MatteboxRuntime

/// The bridge between libvips' memory and Mattebox images: starting the library,
/// turning its buffers into PixelImages without copying, and its messages into
/// MatteboxErrors.
package enum Vips {
    package static func start() throws {
        guard mbx_vips_start() == 0 else {
            throw MatteboxError("libvips failed to start", hint: "is libvips42 installed? run `make deps`")
        }
    }

    /// Runs a shim call that reports failure through a malloc'd message.
    package static func call(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32) throws {
        var message: UnsafeMutablePointer<CChar>?
        if body(&message) != 0 {
            let text = message.map { String(cString: $0) } ?? "libvips failed"
            mbx_vips_free(message)
            throw MatteboxError(Self.explained(text))
        }
    }

    /// libvips' words for a damaged file, with what they mean in front (the original kept after it).
    package static func explained(_ message: String) -> String {
        let meanings = [
            ("Premature end of", "the file is cut short (truncated, or still being copied)"),
            ("Not a JPEG file", "the file is not the JPEG its name says"),
            ("Corrupt JPEG data", "the JPEG's data is damaged"),
            // libjpeg's "Bogus ..." messages: a table or segment header that cannot be what it claims.
            ("Bogus marker length", "the JPEG is damaged: a segment's length is impossible"),
            ("Bogus DQT index", "the JPEG is damaged: it names a quantisation table that cannot exist"),
            ("Bogus DHT index", "the JPEG is damaged: it names a Huffman table that cannot exist"),
            ("Bogus Huffman table definition", "the JPEG is damaged: a Huffman table is malformed"),
            ("Bogus", "the JPEG is damaged: a header holds impossible values"),
            ("Huffman table 0x", "the JPEG is damaged: it uses a Huffman table it never defines"),
            ("Invalid SOS parameters", "the JPEG is damaged: its scan header is malformed"),
        ]
        guard let meaning = meanings.first(where: { message.contains($0.0) })?.1 else { return message }
        // Keep the file's name first, where libvips put it.
        if let colon = message.range(of: ": "), message[..<colon.lowerBound].hasPrefix("/") {
            return "\(message[..<colon.lowerBound]): \(meaning) (\(message[colon.upperBound...]))"
        }
        return "\(meaning) (\(message))"
    }

    /// Adopts pixels libvips allocated; they are released with g_free.
    package static func image(adopting pixels: mbx_pixels) throws -> PixelImage {
        guard let data = pixels.data, let format = SampleFormat(rawValue: Int(pixels.format)) else {
            var leftover = pixels
            mbx_vips_pixels_free(&leftover)
            throw MatteboxError("libvips returned pixels in an unsupported sample format")
        }
        return PixelImage(
            adopting: data, width: Int(pixels.width), height: Int(pixels.height),
            channels: Int(pixels.bands), format: format,
            release: { pointer in
                var owned = mbx_pixels(data: pointer, size: 0, width: 0, height: 0, bands: 0, format: 0)
                mbx_vips_pixels_free(&owned)
            })
    }

    /// A borrowed description of an image's pixels for a shim call.
    package static func pixels(of image: PixelImage) -> mbx_pixels {
        mbx_pixels(
            data: image.data, size: image.byteCount, width: Int32(image.width),
            height: Int32(image.height), bands: Int32(image.channels), format: Int32(image.format.rawValue))
    }

    package static func data(_ blob: mbx_blob) -> Data? {
        guard let bytes = blob.data, blob.size > 0 else { return nil }
        return Data(bytes: bytes, count: blob.size)
    }
}

/// The version of libvips Mattebox runs on, for `--version`.
package enum ImageLibraries {
    package static var libvipsVersion: String { String(cString: mbx_vips_version()) }
}
