import CHeif
import Foundation
import MatteboxCore
import MatteboxISOBMFF
import MatteboxImageIO
import MatteboxTestSupport
import Testing

@testable import MatteboxHEIF

/// An 8-bit photo is made YCbCr 4:2:0 by Mattebox before libheif encodes it,
/// sparing the RGB copy libheif would make and keep through the encode (36 MiB
/// at 12 MP), with libheif's own arithmetic: the coded primary and thumbnail
/// are the bytes libheif gives when handed the RGB pixels itself, at even and
/// odd sizes alike.
@Suite struct PrimaryColourConversionTests {
    /// The astronaut photo (a real JPEG), and a crop of it with odd width and height.
    static func photos() throws -> [PixelImage] {
        let photo = try ImageDecoder.decodePhoto(at: TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras/astronaut.jpg")).primary
        let (width, height) = (photo.width - 3, photo.height - 1)
        let odd = PixelImage(width: width, height: height, channels: 3, format: .uint8)
        for y in 0..<height {
            (odd.data + y * width * 3).copyMemory(from: photo.data + ((y + 1) * photo.width + 2) * 3, byteCount: width * 3)
        }
        return [photo, odd]
    }

    /// libheif's own encode of RGB pixels, with its own thumbnail: (primary, thumbnail) coded bytes.
    static func libheifsOwn(_ image: PixelImage, quality: Int32, preset: String, thumbnail: Int32) throws -> ([UInt8], [UInt8]) {
        let context = heif_context_alloc()
        defer { heif_context_free(context) }
        var pixels: OpaquePointer?
        #expect(heif_image_create(Int32(image.width), Int32(image.height), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &pixels).code == heif_error_Ok)
        defer { heif_image_release(pixels) }
        #expect(heif_image_add_plane(pixels, heif_channel_interleaved, Int32(image.width), Int32(image.height), 8).code == heif_error_Ok)
        var stride: Int32 = 0
        let plane = try #require(heif_image_get_plane(pixels, heif_channel_interleaved, &stride))
        for y in 0..<image.height {
            (plane + y * Int(stride)).update(from: (image.data + y * image.width * 3).assumingMemoryBound(to: UInt8.self), count: image.width * 3)
        }
        var encoder: OpaquePointer?
        #expect(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder).code == heif_error_Ok)
        defer { heif_encoder_release(encoder) }
        _ = heif_encoder_set_lossy_quality(encoder, quality)
        _ = heif_encoder_set_parameter_string(encoder, "preset", preset)
        let options = heif_encoding_options_alloc()
        defer { heif_encoding_options_free(options) }
        options?.pointee.save_alpha_channel = 0
        options?.pointee.macOS_compatibility_workaround = 0
        var primary: OpaquePointer?, small: OpaquePointer?
        #expect(heif_context_encode_image(context, pixels, encoder, options, &primary).code == heif_error_Ok)
        #expect(heif_context_encode_thumbnail(context, pixels, primary, encoder, options, thumbnail, &small).code == heif_error_Ok)
        heif_image_handle_release(primary)
        heif_image_handle_release(small)
        final class Written { var bytes: [UInt8] = [] }
        let written = Written()
        var writer = heif_writer(
            writer_api_version: 1,
            write: { _, data, size, target in
                Unmanaged<Written>.fromOpaque(target!).takeUnretainedValue().bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: size))
                return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
            })
        #expect(heif_context_write(context, &writer, Unmanaged.passUnretained(written).toOpaque()).code == heif_error_Ok)
        let file = try HEIFFile(bytes: written.bytes)
        let thumbnailID = try #require(file.items(referencing: file.primaryID, by: "thmb").first)
        return (try file.data(of: file.primaryID), try file.data(of: thumbnailID))
    }

    @Test func theCodedPrimaryAndThumbnailAreLibheifsOwn() throws {
        for image in try Self.photos() {
            let settings = ItemCodecSettings(quality: 75, preset: "fast", thumbnailSize: 64)
            let coded = try HEVCCodec().encode(image, settings: settings)
            let (primary, thumbnail) = try Self.libheifsOwn(image, quality: 75, preset: "fast", thumbnail: 64)
            // (Compared first, so that a failure names the sizes, not a megabyte of bytes.)
            let samePrimary = coded.image.data == primary, sameThumbnail = coded.thumbnail?.data == thumbnail
            #expect(samePrimary, "\(image.width)x\(image.height): the primary's coded stream, \(coded.image.data.count) vs \(primary.count) bytes")
            #expect(sameThumbnail, "\(image.width)x\(image.height): the thumbnail's coded stream")
        }
    }
}
