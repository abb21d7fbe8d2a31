import Foundation
import MatteboxCore
import MatteboxISOBMFF
import MatteboxMetadata
import MatteboxRuntime

/// How a photo is written as HEIF.
package struct HEIFWriteOptions: Sendable, Equatable {
    /// The codec images are encoded with: HEVC (a HEIC file) or AV1 (an AVIF file).
    package var codec: any ItemCodec = HEVCCodec()
    /// Encoder quality, 1...100. 75 keeps an iPhone photo within about 57 dB PSNR of its
    /// original decode at twice its size (`make bench` and the closing note of issue 3).
    package var quality = HEIFWriteOptions.defaultQuality
    /// The x265 preset; nil picks one from the photo's quality prioritisation.
    package var preset: String?
    /// The longest side of the thumbnail item; 0 writes none.
    package var thumbnailSize = 320
    /// Copy images whose pixels did not change from the HEIF they were read
    /// from, as they are coded; false encodes every image again.
    package var passthrough = true
    /// The primary's encode, begun while later stages ran; used when still current.
    package var encodedAhead: PrimaryEncodeAhead?
    /// For a JPEG output with depth: write it as Dynamic Depth even when the input's own
    /// bytes (an iPhone's MPF images, Lens Blur's XMP) still hold every auxiliary image.
    package var dynamicDepth = false

    /// The same options without `dynamicDepth` (for the primary a Dynamic Depth file wraps).
    package var withoutDynamicDepth: HEIFWriteOptions {
        var copy = self
        copy.dynamicDepth = false
        return copy
    }

    package static let defaultQuality = 75

    package init(
        quality: Int = HEIFWriteOptions.defaultQuality, preset: String? = nil, thumbnailSize: Int = 320, passthrough: Bool = true
    ) {
        self.quality = quality
        self.preset = preset
        self.thumbnailSize = thumbnailSize
        self.passthrough = passthrough
    }

    /// Speed, balanced and quality map to x265 presets as a capture pipeline
    /// would want them: fast enough for a shutter, or small and clean.
    package static func preset(for quality: QualityPrioritization) -> String {
        switch quality {
        case .speed: return "ultrafast"
        case .balanced: return "fast"
        case .quality: return "slow"
        }
    }

    /// The x265 preset mattes are encoded with, whatever the photo's (see `addAuxiliary`).
    package static let matteEncoderPreset = "ultrafast"

    package static func == (a: HEIFWriteOptions, b: HEIFWriteOptions) -> Bool {
        (a.quality, a.preset, a.thumbnailSize, a.passthrough, a.dynamicDepth) == (b.quality, b.preset, b.thumbnailSize, b.passthrough, b.dynamicDepth)
            && a.encodedAhead === b.encodedAhead && a.codec.itemType == b.codec.itemType
    }
}

/// Writes a Photo as a HEIF file the way iPhones lay one out, so iPhone-aware
/// readers find everything: the coded primary (HEVC, or AV1 for AVIF), a thumbnail (`thmb`), EXIF and
/// XMP (`cdsc`), and each auxiliary image as a hidden coded item with an
/// essential `auxC`, linked to the primary by exactly one `auxl` (as libheif
/// 1.15 requires) and described by its own XMP. Depth and disparity carry the
/// depth representation SEI and Apple's pixel data info. Orientation stays as
/// stored and is stated as `irot`/`imir` on every image item plus the EXIF tag.
///
/// An image whose pixels are still those decoded from a HEIF input (its
/// `CodedOrigin`) is not encoded again: its coded item is copied byte for
/// byte, so adding mattes to an iPhone photo costs no generation loss and
/// only the new images' encoding time.
package enum HEIFWriter {
    /// The note (by name) that says what of a HEIF input a write did not keep.
    package static let notKeptNote = "notKept"

    package static func encode(_ photo: Photo, options: HEIFWriteOptions = HEIFWriteOptions()) throws -> Data {
        try encodeReporting(photo, options: options).data
    }

    /// The file, and what of the HEIF input the photo came from it does not
    /// keep (derived images of re-encoded images, their groups, items
    /// Mattebox does not model), one phrase each.
    package static func encodeReporting(_ photo: Photo, options: HEIFWriteOptions = HEIFWriteOptions()) throws
        -> (data: Data, notKept: [String])
    {
        do {
            var notKept: [String] = []
            var bytes = try build(photo, options: options, notKept: &notKept)
            // Never a file libheif refuses: what was copied from a damaged input is the likely cause, so
            // the photo is written again with every image encoded and nothing else of the input carried;
            // if libheif refuses that too, the photo fails and nothing is written.
            // (An unchanged photo written as its input's own bytes was opened by libheif before it was chosen.)
            if bytes != photo.metadata.codedOrigins[.primary]?.file.bytes, let refusal = libheifRefusal(bytes) {
                guard options.passthrough else {
                    throw MatteboxError("\(photo.displayName): the HEIF made of it is one libheif refuses (\(refusal)); nothing was written")
                }
                var fresh = options
                fresh.passthrough = false
                notKept = []
                bytes = try build(photo, options: fresh, notKept: &notKept)
                if let again = libheifRefusal(bytes) {
                    throw MatteboxError("\(photo.displayName): the HEIF made of it is one libheif refuses (\(again)); nothing was written")
                }
                notKept.insert(
                    "what was copied of the input (libheif refused the file with it: \(refusal)); every image was encoded again", at: 0)
                Log.emit(.warning, "\(photo.displayName): libheif refused the output with the input's items copied (\(refusal)); written with every image encoded again")
            }
            return (Data(bytes), notKept)
        } catch let error as HEIFError {
            throw MatteboxError(error, file: photo.displayName)
        }
    }

    /// Why libheif refuses `bytes` as a HEIF file, or nil when it opens it.
    static func libheifRefusal(_ bytes: [UInt8]) -> String? {
        do {
            _ = try Libheif.describe(bytes)
            return nil
        } catch {
            return "\(error)"
        }
    }

    static func build(_ photo: Photo, options: HEIFWriteOptions) throws -> [UInt8] {
        var notKept: [String] = []
        return try build(photo, options: options, notKept: &notKept)
    }

    /// The pixels and settings the primary is encoded with, when it is encoded
    /// rather than copied from its HEIF input (for `PrimaryEncodeAhead`).
    static func primaryEncoding(of photo: Photo, options: HEIFWriteOptions) -> (PixelImage, ItemCodecSettings)? {
        guard (1...100).contains(options.quality), photo.primary.format != .float32 else { return nil }
        var sources = PassthroughSources(photo.metadata.codedOrigins, copying: options.passthrough, codec: options.codec)
        let copied = try? sources.unchanged(.primary, photo.primary, iccProfile: photo.metadata.iccProfile)
        if copied != nil { return nil }
        let pixels = try? rgb(photo.primary)
        return pixels.map { ($0, primarySettings(of: photo, pixels: $0, settings: baseSettings(photo, options), options: options)) }
    }

    private static func baseSettings(_ photo: Photo, _ options: HEIFWriteOptions) -> ItemCodecSettings {
        ItemCodecSettings(quality: options.quality, preset: options.preset ?? HEIFWriteOptions.preset(for: photo.metadata.capture.quality))
    }

    /// An encoded primary's bit depth and thumbnail.
    private static func primarySettings(
        of photo: Photo, pixels: PixelImage, settings: ItemCodecSettings, options: HEIFWriteOptions
    ) -> ItemCodecSettings {
        var settings = settings
        // 16-bit pixels (a 16-bit PNG, a 10- or 12-bit HEIF) keep as many bits as the codec holds.
        settings.bitDepth = pixels.format == .uint16 ? options.codec.storedBitDepth(options.codec.maximumBitDepth) : 8
        // libheif makes no thumbnail of an image that already fits the box.
        let fitsBox = max(photo.primary.width, photo.primary.height) <= options.thumbnailSize
        settings.thumbnailSize = photo.auxiliary[.thumbnail] == nil && !fitsBox ? options.thumbnailSize : 0
        return settings
    }

    static func build(_ photo: Photo, options: HEIFWriteOptions, notKept: inout [String]) throws -> [UInt8] {
        guard (1...100).contains(options.quality) else {
            throw MatteboxError("HEIF quality \(options.quality) is outside 1...100")
        }
        let notKeptBefore = notKept.count
        var settings = baseSettings(photo, options)
        var builder = HEIFBuilder()
        builder.majorBrand = options.codec.majorBrand
        builder.compatibleBrands = options.codec.compatibleBrands
        var sources = PassthroughSources(photo.metadata.codedOrigins, copying: options.passthrough, codec: options.codec)
        let copiedPrimary = try sources.unchanged(.primary, photo.primary, iccProfile: photo.metadata.iccProfile)
        // Every image is stored in one frame. A copied primary stays as coded,
        // so the frame is its coded one, turned for display by what a stage did
        // to it (geometry) and then by the photo's orientation; images encoded
        // here are brought into that frame.
        let frame = Frame(shown: photo.metadata.orientation, stored: copiedPrimary.map { $0.geometry.then(photo.metadata.orientation) })
        var copied: [UInt32: UInt16] = [:]  // input item → written item, for what refers to them
        let (primary, thumbnail) = try addPrimary(
            of: photo, copiedFrom: copiedPrimary, frame: frame, options: options, settings: &settings, copied: &copied, to: &builder)
        // Input item → written item for images encoded again from their unchanged pixels (another codec: HEIC → AVIF),
        // which what is derived from their pixels (a tone map) still describes.
        var encodedAgain: [UInt32: UInt16] = [:]
        if copiedPrimary == nil, let item = samePicture(.primary, photo.primary, of: photo, iccProfile: photo.metadata.iccProfile) {
            encodedAgain[item] = primary
        }
        try addThumbnail(thumbnail, of: photo, primary: primary, frame: frame, options: options, to: &builder)
        try addMetadata(of: photo, primary: primary, frame: frame, to: &builder)
        let source = try sources.input()
        let encoded = try addAuxiliaries(
            of: photo, from: source, sources: &sources, primary: primary, frame: frame, settings: settings, codec: options.codec,
            copied: &copied, encodedAgain: &encodedAgain, notKept: &notKept, to: &builder)
        if let source {
            try HEIFCarryOver.otherImages(from: source, copied: &copied, into: &builder)
            let brands = try HEIFCarryOver.derivedImagesAndGroups(
                from: source, copied: &copied, encodedAgain: encodedAgain, shownSize: frame.shownSize(of: photo.primary),
                into: &builder, notKept: &notKept)
            builder.compatibleBrands += brands.filter { !builder.compatibleBrands.contains($0) }
            try HEIFCarryOver.descriptions(from: source, copied: copied, into: &builder, notKept: &notKept)
            notKept += HEIFCarryOver.unmodelledItems(of: source)
        }
        if !builder.compatibleBrands.contains("tmap"), let gainMap = encoded[HEIFToneMap.gainMapRole],
            let stops = photo.gainMapHeadroomStops
        {
            // A gain map encoded here (AVIF, one from an Ultra HDR JPEG) gets the ISO 21496-1 tone map
            // AVIF readers look for, as iOS 18 writes one beside Apple's.
            try HEIFToneMap.add(over: primary, gainMap: gainMap, metadata: HEIFToneMap.isoDescription(headroomStops: stops).metadata,
                                shownSize: frame.shownSize(of: photo.primary), to: &builder)
        } else if !builder.compatibleBrands.contains("tmap"), let gainMap = encoded[.isoGainMap],
            let bytes = photo.metadata.gainMap.iso21496
        {
            // A gain map kept in ISO 21496-1's form exists only through its tone map (the input's was
            // carried above when nothing it is made from changed).
            try HEIFToneMap.add(over: primary, gainMap: gainMap, metadata: try GainMapMetadata(bytes: bytes, leadingVersion: false),
                                shownSize: frame.shownSize(of: photo.primary), to: &builder)
        }
        let written = try builder.serialize()
        // A photo no stage changed is its input's own bytes (brands and layout included), not an equal rewrite,
        // unless libheif refuses the input (iOS 18's links to two images, for libheif before 1.18).
        if let source, notKept.count == notKeptBefore, let built = try? HEIFFile(bytes: written), HEIFSameContent.holds(built, source),
            libheifRefusal(source.bytes) == nil
        {
            return source.bytes
        }
        return written
    }

    /// The one frame every image is stored in, and how it is shown.
    private struct Frame {
        /// The photo's orientation: how it is shown.
        let shown: ExifOrientation
        /// How the stored pixels are turned for display (`irot`/`imir`, and the EXIF tag).
        let stored: ExifOrientation
        let transforms: [[UInt8]]

        init(shown: ExifOrientation, stored: ExifOrientation?) {
            self.shown = shown
            self.stored = stored ?? shown
            transforms = HEIFOrientation.transformBoxes(for: self.stored)
        }

        /// `image`, which lies as the photo is shown, brought into the stored frame.
        func storing(_ image: PixelImage) throws -> PixelImage {
            stored == shown ? image : try StoredFrame.align(image, from: shown, to: stored)
        }

        /// The size `image` (which lies as its pixels were decoded) is shown at: turned by the photo's orientation.
        func shownSize(of image: PixelImage) -> (width: Int, height: Int) {
            shown.swapsDimensions ? (image.height, image.width) : (image.width, image.height)
        }
    }

    /// The primary: copied as coded when its pixels are unchanged (with the
    /// thumbnail made from it), else encoded (or taken from the encode-ahead);
    /// its item, and a thumbnail encoded with it.
    private static func addPrimary(
        of photo: Photo, copiedFrom copiedPrimary: (container: HEIFFile, item: UInt32, geometry: ExifOrientation)?, frame: Frame,
        options: HEIFWriteOptions, settings: inout ItemCodecSettings, copied: inout [UInt32: UInt16], to builder: inout HEIFBuilder
    ) throws -> (primary: UInt16, thumbnail: CodedItem?) {
        guard let (container, item, _) = copiedPrimary else {
            let primaryPixels = try rgb(photo.primary)
            settings = primarySettings(of: photo, pixels: primaryPixels, settings: settings, options: options)
            let coded = try options.encodedAhead?.coded(primary: photo.primary, settings: settings, codec: options.codec)
                ?? options.codec.encode(primaryPixels, settings: settings)
            let primary = try addImage(coded.image, codec: options.codec, hidden: false, to: &builder, transforms: frame.transforms)
            if let icc = photo.metadata.iccProfile {
                builder.associate(primary, property: iccBox(icc), essential: false)
            }
            return (primary, coded.thumbnail)
        }
        // The pixels are those decoded: the coded primary and the
        // thumbnail made from it are copied, not encoded again.
        let primary = try copyImage(item, from: container, hidden: false, to: &builder, transforms: frame.transforms)
        copied[item] = primary
        if let icc = photo.metadata.iccProfile, container.property("colr", of: item) == nil {
            builder.associate(primary, property: iccBox(icc), essential: false)
        }
        if photo.auxiliary[.thumbnail] == nil, options.thumbnailSize > 0 {
            for source in container.items(referencing: item, by: "thmb") where container.items[source]?.type == options.codec.itemType {
                let id = try copyImage(source, from: container, hidden: false, to: &builder, transforms: frame.transforms)
                builder.addReference("thmb", from: id, to: [primary])
            }
        }
        settings.bitDepth = photo.primary.format == .uint16 ? options.codec.storedBitDepth(10) : 8
        return (primary, nil)
    }

    /// The thumbnail: the photo's own when it has one (encoded), else the one
    /// encoded with the primary; visible, as iPhones write it (readers take it
    /// out of the top level through `thmb`).
    private static func addThumbnail(
        _ encoded: CodedItem?, of photo: Photo, primary: UInt16, frame: Frame, options: HEIFWriteOptions,
        to builder: inout HEIFBuilder
    ) throws {
        var thumbnail = encoded
        if let own = photo.auxiliary[.thumbnail], options.thumbnailSize > 0 {
            let preset = options.preset ?? HEIFWriteOptions.preset(for: photo.metadata.capture.quality)
            let pixels = try rgb(try frame.storing(own))
            thumbnail = try options.codec.encode(pixels, settings: ItemCodecSettings(quality: options.quality, preset: preset)).image
        }
        guard let thumbnail else { return }
        let id = try addImage(thumbnail, codec: options.codec, hidden: false, to: &builder, transforms: frame.transforms)
        builder.addReference("thmb", from: id, to: [primary])
    }

    /// EXIF (its tag and sizes describing the stored primary, as the transforms do) and XMP, as items describing the primary.
    private static func addMetadata(of photo: Photo, primary: UInt16, frame: Frame, to builder: inout HEIFBuilder) throws {
        var written = photo.metadata
        written.orientation = frame.stored
        let turned = frame.stored.swapsDimensions != frame.shown.swapsDimensions
        let (width, height) = turned ? (photo.primary.height, photo.primary.width) : (photo.primary.width, photo.primary.height)
        if let exif = written.exifForWriting(width: width, height: height) {
            // A 4-byte offset to the TIFF header, then "Exif\0\0" and the block, as iPhones write it.
            var payload = ByteWriter()
            payload.u32(6)
            payload.append(Array("Exif".utf8) + [0, 0])
            payload.append(exif.bytes)
            let id = try builder.addItem(type: "Exif", hidden: true, data: payload.bytes)
            builder.addReference("cdsc", from: id, to: [primary])
        }
        if let xmp = photo.metadata.xmp, !xmp.isEmpty {
            let id = try builder.addItem(type: "mime", hidden: true, data: [UInt8](xmp), contentType: "application/rdf+xml")
            builder.addReference("cdsc", from: id, to: [primary])
        }
    }

    /// Depth, disparity and mattes: copied as coded when unchanged (with their
    /// `auxC`, `pixi`, depth representation and XMP), else encoded; a stereo
    /// pair's unchanged right view is left to the carry-over, as a top-level image.
    private static func addAuxiliaries(
        of photo: Photo, from source: HEIFFile?, sources: inout PassthroughSources, primary: UInt16, frame: Frame,
        settings: ItemCodecSettings, codec: any ItemCodec, copied: inout [UInt32: UInt16], encodedAgain: inout [UInt32: UInt16],
        notKept: inout [String], to builder: inout HEIFBuilder
    ) throws -> [ImageRole: UInt16] {
        var encoded: [ImageRole: UInt16] = [:] // the images encoded here, not copied
        let partner = source.flatMap(HEIFCarryOver.stereoPartner)
        for role in photo.auxiliary.keys.sorted() where role != .thumbnail {
            let image = photo.auxiliary[role]!
            if role == .isoGainMap {
                do {
                    let id = try addISOGainMap(image, of: photo, sources: &sources, frame: frame, settings: settings, codec: codec,
                                               copied: &copied, to: &builder)
                    encoded[role] = id
                    // Encoded again from its unchanged pixels (HEIC → AVIF): the input's tone map still describes it.
                    if !copied.values.contains(id), let item = samePicture(role, image, of: photo) { encodedAgain[item] = id }
                } catch {
                    notKept.append("the ISO 21496-1 gain map (\(image.width)x\(image.height)): \(error)")
                }
                continue
            }
            if role == HEIFReader.stereoRightRole, let partner, let origin = photo.metadata.codedOrigins[role],
                origin.item == partner, origin.isUnchanged(image)
            {
                continue
            }
            if let (container, item, geometry) = try sources.unchanged(role, image) {
                let own = HEIFOrientation.transformBoxes(for: geometry.then(frame.shown))
                let id = try copyImage(item, from: container, hidden: true, to: &builder, transforms: own)
                copied[item] = id
                builder.addReference("auxl", from: id, to: [primary])
                if let xmp = photo.metadata.auxiliaryInfo[role]?.xmp {
                    let xmpID = try builder.addItem(type: "mime", hidden: true, data: [UInt8](xmp), contentType: "application/rdf+xml")
                    builder.addReference("cdsc", from: xmpID, to: [id])
                }
            } else {
                // An image the encoder refuses (a damaged input's 40000x1 GImage) is left out and named; the photo stays.
                do {
                    let id = try addAuxiliary(
                        role, image: try frame.storing(image), of: photo, primary: primary, settings: settings, codec: codec,
                        transforms: frame.transforms, to: &builder)
                    if let item = samePicture(role, image, of: photo) { encodedAgain[item] = id }
                    encoded[role] = id
                } catch HEIFError.codec(let message) {
                    notKept.append("the \(role) image (\(image.width)x\(image.height)): the \(codec.name) encoder refused it (\(message))")
                }
            }
        }
        return encoded
    }

    /// A gain map kept in ISO 21496-1's form: a hidden image item that only a tone map refers to
    /// (no `auxl`: it is not an auxiliary image of the primary), copied as coded when unchanged,
    /// else encoded as it is (grey, or colour for a map per channel). Its item.
    private static func addISOGainMap(
        _ image: PixelImage, of photo: Photo, sources: inout PassthroughSources, frame: Frame, settings: ItemCodecSettings,
        codec: any ItemCodec, copied: inout [UInt32: UInt16], to builder: inout HEIFBuilder
    ) throws -> UInt16 {
        if let (container, item, geometry) = try sources.unchanged(.isoGainMap, image) {
            let id = try copyImage(item, from: container, hidden: true, to: &builder, transforms: HEIFOrientation.transformBoxes(for: geometry.then(frame.shown)))
            copied[item] = id
            return id
        }
        var mapSettings = settings
        mapSettings.thumbnailSize = 0
        mapSettings.bitDepth = 8
        let pixels = try frame.storing(image).converted(channels: image.channels >= 3 ? 3 : 1, eightBit: true)
        let coded = try codec.encode(pixels, settings: mapSettings).image
        return try addImage(coded, codec: codec, hidden: true, to: &builder, transforms: frame.transforms)
    }

    /// The input item `image` was decoded from when it still holds those pixels, turned (if at all) as the
    /// primary was, and came from the same file as the primary (whose other items the carry-over reads).
    private static func samePicture(_ role: ImageRole, _ image: PixelImage, of photo: Photo, iccProfile: Data? = nil) -> UInt32? {
        guard let origin = photo.metadata.codedOrigins[role], let primary = photo.metadata.codedOrigins[.primary],
            origin.file === primary.file, origin.geometry == primary.geometry, origin.isUnchanged(image, iccProfile: iccProfile)
        else { return nil }
        return origin.item
    }

    private static func iccBox(_ icc: Data) -> [UInt8] {
        ByteWriter.box("colr") { $0.fourCC("prof"); $0.append(icc) }
    }

    /// Copies a coded image (an hvc1 or av01, or a grid and its tiles) from the input with
    /// all its properties but the transforms, then states this photo's transforms.
    private static func copyImage(
        _ item: UInt32, from container: HEIFFile, hidden: Bool, to builder: inout HEIFBuilder, transforms: [[UInt8]]
    ) throws -> UInt16 {
        let id = try ImageItemExtractor.copyImage(item, from: container, into: &builder, hidden: hidden, whole: true).id
        for box in transforms { builder.associate(id, property: box, essential: true) }
        return id
    }

    @discardableResult
    private static func addAuxiliary(
        _ role: ImageRole, image: PixelImage, of photo: Photo, primary: UInt16, settings: ItemCodecSettings, codec: any ItemCodec,
        transforms: [[UInt8]], to builder: inout HEIFBuilder
    ) throws -> UInt16 {
        let info = photo.metadata.auxiliaryInfo[role]
        let stored = try StorablePixels.prepare(image, role: role, info: info)
        var auxSettings = settings
        auxSettings.thumbnailSize = 0
        auxSettings.bitDepth = stored.image.format == .uint16 ? codec.storedBitDepth(10) : 8
        // A matte is smooth: x265's ultrafast preset keeps it as close to its pixels as the photo's
        // preset does (measured on a 2016x1512 MODNet matte at quality 75: mean error 0.023 levels
        // against 0.020 at fast, the worst pixel 4 levels either way) in a third of the time.
        // Depth keeps the photo's preset.
        if role != .depth, role != .disparity, stored.image.channels == 1, stored.image.format == .uint8 {
            auxSettings.preset = HEIFWriteOptions.matteEncoderPreset
        }
        let coded = try codec.encode(stored.image, settings: auxSettings).image
        // pixi is written by libheif for colour images; grey ones get theirs here.
        let id = try addImage(coded, codec: codec, hidden: true, to: &builder, transforms: [])
        if !coded.properties.contains(where: { BoxType.string($0.box[4..<8]) == "pixi" }) {
            let bits = UInt8(auxSettings.bitDepth)
            let pixi = ByteWriter.fullBox("pixi") { box in
                box.u8(UInt8(stored.image.channels))
                for _ in 0..<stored.image.channels { box.u8(bits) }
            }
            builder.associate(id, property: pixi, essential: false)
        }
        for box in transforms { builder.associate(id, property: box, essential: true) }
        let urn = AuxiliaryType.urn(for: role, info: info)
        let auxC = ByteWriter.fullBox("auxC") { box in
            box.cString(urn)
            // The depth representation SEI iPhones put here, whatever the codec: libheif reads it from AVIF too.
            if let depth = stored.depth { box.append(DepthRepresentationSEI.encode(depth)) }
        }
        builder.associate(id, property: auxC, essential: true)
        builder.addReference("auxl", from: id, to: [primary])

        let xmp = stored.unchanged && info?.xmp != nil
            ? info?.xmp : AuxiliaryXMP.packet(for: role, depth: stored.depth, relative: stored.relative)
        if let xmp {
            let xmpID = try builder.addItem(type: "mime", hidden: true, data: [UInt8](xmp), contentType: "application/rdf+xml")
            builder.addReference("cdsc", from: xmpID, to: [id])
        }
        return id
    }

    /// Adds a coded image item with libheif's properties, then the transforms.
    private static func addImage(
        _ coded: CodedItem, codec: any ItemCodec, hidden: Bool, to builder: inout HEIFBuilder, transforms: [[UInt8]]
    ) throws -> UInt16 {
        let id = try builder.addItem(type: codec.itemType, hidden: hidden, data: coded.data)
        for (box, essential) in coded.properties { builder.associate(id, property: box, essential: essential) }
        for box in transforms { builder.associate(id, property: box, essential: true) }
        return id
    }

    /// The primary as 3-channel 8- or 16-bit pixels (grey is spread, alpha dropped).
    private static func rgb(_ image: PixelImage) throws -> PixelImage {
        guard image.format != .float32 else {
            throw MatteboxError("a float primary image cannot be written as HEIF or AVIF; convert it to 8 or 16 bits first")
        }
        return image.converted(channels: 3, eightBit: false)
    }
}
