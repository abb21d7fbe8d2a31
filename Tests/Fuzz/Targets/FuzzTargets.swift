import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxISOBMFF
import MatteboxImageIO
import MatteboxMovie
import MatteboxPipeline
import MatteboxServer
import MatteboxVision
import MatteboxMetadata

/// Every parser Mattebox wrote itself, each as a function of arbitrary bytes,
/// as libFuzzer (`make fuzz`) and the regression replay (`FuzzRegressionTests`)
/// call them. A target may throw or return nothing; it must never crash, hang
/// or read out of bounds (the fuzz build runs under AddressSanitizer).
package enum FuzzTargets {
    package static let all: [String: @Sendable ([UInt8]) -> Void] = [
        "isobmff": isobmff,
        "heif-motion-photo": heifMotionPhoto,
        "jpeg-segments": jpegSegments,
        "exif": exif,
        "motion-photo-xmp": motionPhotoXMP,
        "movie": movie,
        "bmp": bmp,
        "pfm": pfm,
        "png-text": pngText,
        "pipeline-yaml": pipelineYAML,
        "http-range": httpRange,
        "mpf-index": mpfIndex,
        "extended-xmp": extendedXMP,
        "dynamic-depth": dynamicDepth,
        "iso-gain-map": isoGainMap,
        "ultra-hdr": ultraHDR,
    ]

    /// The ISOBMFF box layer and HEIF's item model: items, properties, references, item data.
    static func isobmff(_ bytes: [UInt8]) {
        guard let container = try? HEIFFile(bytes: bytes) else { return }
        for id in container.itemOrder.prefix(64) {
            _ = container.properties(of: id)
            _ = try? container.data(of: id)
            _ = container.targets(of: id, by: "dimg")
            _ = container.items(referencing: id, by: "auxl")
        }
        _ = HEIFOnePictureLosses.of(bytes)
    }

    /// A HEIC Motion Photo's `mpvd` box and the top-level boxes a rewrite cannot carry.
    static func heifMotionPhoto(_ bytes: [UInt8]) {
        guard let container = try? HEIFFile(bytes: bytes) else { return }
        _ = MotionPhotoVideoBox.movie(in: container)
        _ = MotionPhotoVideoBox.unmodelledBoxes(in: container)
    }

    static func jpegSegments(_ bytes: [UInt8]) {
        for segment in JPEGSegments.segments(of: bytes) { _ = segment.kind }
        _ = JPEGSegments.unmodelledKinds(of: bytes)
        _ = JPEGSegments.withoutMPF(bytes)
    }

    static func exif(_ bytes: [UInt8]) {
        guard let block = ExifBlock(bytes) else { return }
        _ = (block.orientation, block.make, block.model, block.dateTimeOriginal, block.lensModel)
        _ = (block.appleContentIdentifier, block.exposureValue100, block.hasLocation, block.pixelDimensions)
    }

    /// A Motion Photo's XMP (Google's Camera and Container namespaces) and the JPEG it describes.
    static func motionPhotoXMP(_ bytes: [UInt8]) {
        let xmp = Data(bytes)
        _ = MotionPhotoXMP.movieLength(xmp)
        // Whatever reads, writes back and reads again.
        if let packet = try? XMPPacket(xmp) { _ = try? XMPPacket(packet.data) }
        _ = MotionPhotoTrailer.range(in: bytes, xmp: xmp)
        _ = MotionPhotoXMP.describing(xmp, primaryMime: "image/jpeg", padding: 0, movieLength: 1000)
    }

    static func movie(_ bytes: [UInt8]) { _ = try? MovieInspector.inspect(bytes, name: "fuzz.mp4") }

    static func bmp(_ bytes: [UInt8]) { _ = try? BMPReader.decode(bytes) }

    static func pfm(_ bytes: [UInt8]) { _ = try? DisparityFile.readPFM(Data(bytes), name: "fuzz.pfm") }

    static func pngText(_ bytes: [UInt8]) { _ = PNGChunk.text("mattebox:depth-scale", in: bytes) }

    static func pipelineYAML(_ bytes: [UInt8]) {
        _ = try? PipelineFile.parse(String(decoding: bytes, as: UTF8.self), path: "fuzz.yaml")
    }

    /// An iPhone JPEG's MPF index (CIPA DC-007) and the Apple XMP of each image it lists; an
    /// input that starts "MPF\0" is also read as the APP2 payload alone.
    static func mpfIndex(_ bytes: [UInt8]) {
        if bytes.starts(with: Array("MPF\0".utf8)) {
            _ = try? MPFIndex(payload: bytes[...], payloadOffset: 0, fileLength: bytes.count)
        }
        var problems: [String] = []
        for image in (try? AppleDepthJPEG.describedImages(in: bytes, problems: &problems)) ?? [] {
            precondition(image.image.count <= bytes.count, "an MPF image larger than its file")
        }
    }

    /// ISO 21496-1 gain map metadata, as a `tmap` item's payload (version byte first) and as Ultra HDR's APP2 (without).
    static func isoGainMap(_ bytes: [UInt8]) {
        for leadingVersion in [true, false] {
            if let metadata = try? GainMapMetadata(bytes: bytes, leadingVersion: leadingVersion) {
                precondition(metadata.channels.count == (metadata.isMultichannel ? 3 : 1), "a channel count the flags do not state")
            }
        }
    }

    /// An Ultra HDR JPEG: the MPF index that finds its gain map, and the gain map's hdrgm XMP and
    /// ISO 21496-1 APP2 (an input that is one gain map image alone is read as that too).
    static func ultraHDR(_ bytes: [UInt8]) {
        if UltraHDRJPEG.isGainMap(bytes), let metadata = try? UltraHDRJPEG.metadata(of: bytes, what: "fuzz") {
            precondition(!metadata.channels.isEmpty, "gain map metadata with no channel")
        }
        _ = UltraHDRJPEG.holdsGainMap(bytes)
        if let payload = JPEGSegments.app1Payload(startingWith: JPEGSegments.xmpHeader, in: bytes),
            let packet = try? XMPPacket(Data(payload.dropFirst(JPEGSegments.xmpHeader.count)))
        {
            _ = try? UltraHDRXMP.mapping(in: packet)
            _ = UltraHDRXMP.withoutDescription(packet.data)
        }
    }

    /// Extended XMP reassembled from a JPEG's pieces (GUID, length, offsets, MD5), as Lens Blur stores GDepth.
    static func extendedXMP(_ bytes: [UInt8]) {
        guard let payload = JPEGSegments.app1Payload(startingWith: JPEGSegments.xmpHeader, in: bytes) else {
            // Pieces alone, against the GUID the first one names.
            let pieces = JPEGSegments.segments(of: bytes).filter { $0.starts(with: ExtendedXMP.header) }.map(\.payload)
            if let first = pieces.first, first.count >= ExtendedXMP.header.count + 32 {
                let guid = String(decoding: first.dropFirst(ExtendedXMP.header.count).prefix(32), as: UTF8.self)
                _ = try? ExtendedXMP.reassemble(guid: guid, from: pieces)
            }
            return
        }
        guard let main = try? XMPPacket(Data(payload.dropFirst(JPEGSegments.xmpHeader.count))) else { return }
        _ = try? ExtendedXMP.read(jpeg: bytes, main: main)
    }

    /// A Dynamic Depth JPEG's container directory and the items it places at the file's end.
    static func dynamicDepth(_ bytes: [UInt8]) {
        guard let payload = JPEGSegments.app1Payload(startingWith: JPEGSegments.xmpHeader, in: bytes),
            let main = try? XMPPacket(Data(payload.dropFirst(JPEGSegments.xmpHeader.count)))
        else { return }
        for (_, item) in (try? DynamicDepth.items(in: bytes, main: main)) ?? [:] {
            precondition(item.startIndex >= 0 && item.endIndex <= bytes.count, "a Dynamic Depth item outside the file")
        }
    }

    /// `Range` headers against files of a few sizes: a part must lie inside the file.
    static func httpRange(_ bytes: [UInt8]) {
        let header = String(decoding: bytes, as: UTF8.self)
        for size in [0, 1, 1000, Int.max] {
            if case .part(let range) = ByteRange(header: header, ifRange: nil, size: size) {
                precondition(range.lowerBound >= 0 && range.upperBound < size, "range \(range) outside a file of \(size) bytes")
            }
        }
    }
}
