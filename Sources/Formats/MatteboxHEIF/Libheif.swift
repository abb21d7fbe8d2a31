import CHeifShim
import MatteboxCore
import MatteboxISOBMFF

/// libheif's coding of one image at a time, for every `ItemCodec`. Encoding
/// yields the coded stream and the properties libheif chose for it, ready to
/// be placed in a file Mattebox lays out itself. Decoding hands libheif a
/// small file holding just one image item.
enum Libheif {
    /// Encodes 1- or 3-channel 8- or 16-bit pixels with libheif's encoder for
    /// `compression` (`MBX_HEIF_HEVC` with an x265 `preset`, `MBX_HEIF_AV1` with an aom `speed`).
    static func encode(
        _ image: PixelImage, settings: ItemCodecSettings, compression: Int32, preset: String?, speed: Int32
    ) throws -> (image: CodedItem, thumbnail: CodedItem?) {
        guard image.channels == 1 || image.channels == 3, image.format != .float32 else {
            throw HEIFError.unsupported("coding of \(image.shapeDescription) pixels")
        }
        var pixels = mbx_heif_pixels(
            data: image.data, width: Int32(image.width), height: Int32(image.height),
            channels: Int32(image.channels), bytes_per_sample: Int32(image.format.bytesPerSample))
        var file = mbx_heif_blob(), thumbnailFile = mbx_heif_blob()
        func run(_ preset: UnsafePointer<CChar>?) throws {
            var options = mbx_heif_encode_settings(
                compression: compression, quality: Int32(settings.quality), preset: preset, speed: speed,
                bit_depth: Int32(settings.bitDepth), thumbnail_bbox: Int32(settings.thumbnailSize))
            try call { mbx_heif_encode(&pixels, &options, &file, &thumbnailFile, $0) }
        }
        defer {
            mbx_heif_blob_free(&file)
            mbx_heif_blob_free(&thumbnailFile)
        }
        if let preset { try preset.withCString(run) } else { try run(nil) }
        return (try primaryItem(of: file), thumbnailFile.data == nil ? nil : try primaryItem(of: thumbnailFile))
    }

    /// The one image a file libheif wrote holds.
    private static func primaryItem(of file: mbx_heif_blob) throws -> CodedItem {
        let container = try HEIFFile(bytes: [UInt8](UnsafeRawBufferPointer(start: file.data, count: file.size)))
        return try codedImage(container.primaryID, in: container)
    }

    private static func codedImage(_ id: UInt32, in container: HEIFFile) throws -> CodedItem {
        CodedItem(
            properties: container.properties(of: id).map { ($0.property.box, $0.essential) },
            data: try container.data(of: id))
    }

    /// Decodes an image item (`hvc1` or `av01`, or a `grid` of them) as stored: no
    /// transform is applied beyond a clean-aperture crop.
    static func decode(_ id: UInt32, in container: HEIFFile) throws -> PixelImage {
        let (file, coding) = try ImageItemExtractor.standaloneFile(for: id, in: container)
        let mono = coding.chromaFormat == 0
        // libheif 1.15 cannot assemble grey grid tiles as grey; it can as RGB.
        let isGrid = container.items[id]?.type == "grid"
        let channels = mono && !isGrid ? 1 : 3
        var pixels = mbx_heif_pixels()
        do {
            try file.withUnsafeBytes { buffer in
                try call {
                    mbx_heif_decode(buffer.baseAddress, buffer.count, Int32(channels), Int32(coding.lumaBitDepth), &pixels, $0)
                }
            }
        } catch HEIFError.codec(let message) {
            let kind = container.items[id]?.type ?? "?"
            let size = container.codedSize(of: id).map { "\($0.width)x\($0.height)" } ?? "?"
            throw HEIFError.codec("item \(id) (\(kind) \(size), \(coding.lumaBitDepth)-bit): \(message)")
        }
        guard let data = pixels.data else { throw HEIFError.codec("libheif decoded no pixels for item \(id)") }
        let image = PixelImage(
            adopting: data, width: Int(pixels.width), height: Int(pixels.height), channels: Int(pixels.channels),
            format: pixels.bytes_per_sample == 2 ? .uint16 : .uint8, release: { mbx_heif_free($0) })
        return mono && channels == 3 ? StorablePixels.firstChannel(image) : image
    }

    /// What libheif's own API reports about a file, for cross-checks.
    static func describe(_ bytes: [UInt8]) throws -> String {
        var text: UnsafeMutablePointer<CChar>?
        try bytes.withUnsafeBytes { buffer in
            try call { mbx_heif_describe(buffer.baseAddress, buffer.count, &text, $0) }
        }
        defer { mbx_heif_free(text) }
        return text.map { String(cString: $0) } ?? ""
    }

    private static func call(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32) throws {
        var message: UnsafeMutablePointer<CChar>?
        if body(&message) != 0 {
            let text = message.map { String(cString: $0) } ?? "libheif failed"
            mbx_heif_free(message)
            throw HEIFError.codec(explained(text))
        }
    }

    /// libheif's words with what they mean in front: its decoder plugins say only "Unspecified".
    static func explained(_ message: String) -> String {
        let meanings = [
            ("Decoder plugin generated an error", "the image's coded data is damaged: the decoder could not decode it"),
            ("Failed to encode frame", "the encoder gave up, most often for want of memory for an image this large"),
            ("Invalid image size", "the image's size is not one the encoder takes"),
        ]
        guard let meaning = meanings.first(where: { message.contains($0.0) })?.1 else { return message }
        return "\(meaning) (\(message))"
    }
}
