import Foundation
import CHeif
import MatteboxCore
import MatteboxISOBMFF
import MatteboxMetadata
import MatteboxRuntime

/// What `mattebox inspect` reports about a HEIF file: the primary image, its
/// orientation, thumbnail, EXIF and XMP, and every auxiliary image with its
/// type, size, bit depth and (for depth) range and representation. It comes
/// from the boxes alone, so nothing is decoded and hostile files cost little.
package struct HEIFSummary: Codable, Sendable {
    package struct Image: Codable, Sendable {
        package var item: UInt32
        /// "hvc1", "av01", or "grid" (with its tile count).
        package var coding: String
        package var tiles: Int?
        /// Size as stored (`ispe`) and as displayed (after irot).
        package var storedWidth: Int
        package var storedHeight: Int
        package var width: Int
        package var height: Int
        package var bitDepth: Int?
        package var channels: Int?
    }

    package struct Auxiliary: Codable, Sendable {
        package var image: Image
        package var type: String
        /// The role Mattebox reads it as.
        package var role: String
        package var depth: DepthRepresentation?
        /// apdi:AuxiliaryImageType from its XMP, when present.
        package var xmpAuxiliaryImageType: String?
        package var xmpBytes: Int?
    }

    /// An ISO 21496-1 tone map (iOS 18's `tmap` derived item): the images it joins (the SDR
    /// primary, then the gain map) and its metadata, or why that could not be read.
    package struct ToneMap: Codable, Sendable {
        package var item: UInt32
        package var inputs: [UInt32]
        package var metadata: GainMapMetadata?
        package var problem: String?
    }

    package struct Exif: Codable, Sendable {
        package var bytes: Int
        package var make: String?
        package var model: String?
        package var dateTimeOriginal: String?
        package var orientation: Int?
        package var hasLocation: Bool
        /// A Live Photo's content identifier (Apple's maker note).
        package var contentIdentifier: String?
        /// An iPhone's HDR headroom, from its maker note (for the gain map).
        package var appleHDRHeadroom: AppleHDRHeadroom?

        /// What `inspect` says of an EXIF block, in any container.
        package init(_ block: ExifBlock) {
            bytes = block.bytes.count
            make = block.make
            model = block.model
            dateTimeOriginal = block.dateTimeOriginal
            orientation = block.orientation
            hasLocation = block.hasLocation
            contentIdentifier = block.appleContentIdentifier
            appleHDRHeadroom = block.appleHDRHeadroom
        }
    }

    package var file: String
    package var bytes: Int
    package var brands: [String]
    package var primary: Image
    /// EXIF orientation equivalent of the primary's irot/imir (1 = none).
    package var orientation: Int
    package var transforms: [String]
    package var iccProfileBytes: Int?
    package var thumbnail: Image?
    package var exif: Exif?
    package var xmpBytes: Int?
    package var xmpNamespaces: [String]
    package var auxiliary: [Auxiliary]
    /// Top-level images besides the primary (a stereo pair's other view, a burst).
    package var otherImages: [Image]
    /// Entity groups, as "ster: 1, 2".
    package var entityGroups: [String]
    package var toneMap: ToneMap?
}

/// Builds a `HEIFSummary` from a file's boxes.
package enum HEIFInspector {
    package static func inspect(at url: URL) throws -> HEIFSummary {
        try reading(url) { try summarize($0, file: url.path) }
    }

    /// A HEIC Motion Photo's movie (its `mpvd` box) and the primary's XMP that locates it.
    package typealias MotionPhotoMovie = (movie: Data, xmp: Data?)

    /// The summary and, for a HEIC Motion Photo, its movie, from one read of the file.
    package static func inspectWithMotionPhoto(at url: URL) throws -> (summary: HEIFSummary, motionPhoto: MotionPhotoMovie?) {
        try reading(url) { container in
            let summary = try summarize(container, file: url.path)
            guard let (movie, _) = MotionPhotoVideoBox.movie(in: container) else { return (summary, nil) }
            return (summary, (movie, try HEIFReader.xmp(describing: container.primaryID, in: container)))
        }
    }

    /// `body` on the file's boxes, with a malformed file's error naming it.
    private static func reading<T>(_ url: URL, _ body: (HEIFFile) throws -> T) throws -> T {
        let bytes = try HEIFReader.readBytes(url)
        do {
            return try body(HEIFFile(bytes: bytes))
        } catch let error as HEIFError {
            throw MatteboxError(error, file: url.path)
        }
    }

    static func summarize(_ container: HEIFFile, file: String) throws -> HEIFSummary {
        let primaryID = container.primaryID
        let transforms = HEIFReader.transformProperties(of: primaryID, in: container)
        let orientation = HEIFOrientation.orientation(of: transforms)
        let exifBlock = try HEIFReader.exif(of: primaryID, in: container)
        let xmp = try HEIFReader.xmp(describing: primaryID, in: container)

        var auxiliary: [HEIFSummary.Auxiliary] = []
        for (id, urn, depth) in try HEIFReader.auxiliaryItems(of: primaryID, in: container) {
            let auxXMP = try HEIFReader.xmp(describing: id, in: container)
            auxiliary.append(
                HEIFSummary.Auxiliary(
                    image: try image(id, in: container, orientation: displayOrientation(of: id, in: container, primary: orientation)), type: urn,
                    role: AuxiliaryType.role(for: urn, depth: depth).rawValue, depth: depth,
                    xmpAuxiliaryImageType: auxXMP.flatMap { try? XMPPacket($0).value(.appleAuxiliaryImageType) },
                    xmpBytes: auxXMP?.count))
        }
        let thumbnailID = container.items(referencing: primaryID, by: "thmb").first
        return HEIFSummary(
            file: file, bytes: container.bytes.count, brands: [container.majorBrand] + container.compatibleBrands,
            primary: try image(primaryID, in: container, orientation: orientation),
            orientation: orientation.rawValue,
            transforms: transforms.map(describe),
            iccProfileBytes: HEIFReader.iccProfile(of: primaryID, in: container)?.count,
            thumbnail: try thumbnailID.map { try image($0, in: container, orientation: orientation) },
            exif: exifBlock.map(HEIFSummary.Exif.init),
            xmpBytes: xmp?.count, xmpNamespaces: xmp.map(namespaces) ?? [], auxiliary: auxiliary,
            otherImages: try HEIFCarryOver.otherTopLevelImages(of: container).map {
                try image($0, in: container, orientation: HEIFOrientation.orientation(of: HEIFReader.transformProperties(of: $0, in: container)))
            },
            entityGroups: container.entityGroups.map { "\($0.type): \($0.entities.map(String.init).joined(separator: ", "))" },
            toneMap: toneMap(in: container))
    }

    /// The file's `tmap` item, read; a damaged one is named with what is wrong, never fatal to the listing.
    static func toneMap(in container: HEIFFile) -> HEIFSummary.ToneMap? {
        guard let id = container.items.values.filter({ $0.type == "tmap" }).map(\.id).min() else { return nil }
        var toneMap = HEIFSummary.ToneMap(item: id, inputs: container.targets(of: id, by: "dimg"), metadata: nil, problem: nil)
        do {
            toneMap.metadata = try GainMapMetadata(bytes: container.data(of: id), leadingVersion: true)
        } catch {
            toneMap.problem = "\(error)"
        }
        return toneMap
    }

    /// How an auxiliary image is displayed: by its own transforms when it has
    /// any (a writer that stores it in another frame states that frame), else
    /// as the primary is (iPhones give auxiliary images no transforms of their own).
    private static func displayOrientation(of id: UInt32, in container: HEIFFile, primary: ExifOrientation) -> ExifOrientation {
        let own = HEIFReader.transformProperties(of: id, in: container)
        return own.isEmpty ? primary : HEIFOrientation.orientation(of: own)
    }

    private static func image(_ id: UInt32, in container: HEIFFile, orientation: ExifOrientation) throws
        -> HEIFSummary.Image
    {
        guard let item = container.items[id] else { throw HEIFError.malformed("item \(id) does not exist") }
        guard let size = container.codedSize(of: id) else { throw HEIFError.malformed("image item \(id) has no 'ispe' size") }
        let tiles = item.type == "grid" ? container.targets(of: id, by: "dimg") : []
        var bitDepth: Int?, channels: Int?
        for (property, _) in container.properties(of: tiles.first ?? id) {
            if case .codingConfiguration(let chroma, let bits) = property.value {
                bitDepth = bits
                channels = chroma == 0 ? 1 : 3
            }
        }
        let swaps = orientation.swapsDimensions
        return HEIFSummary.Image(
            item: id, coding: item.type, tiles: tiles.isEmpty ? nil : tiles.count,
            storedWidth: size.width, storedHeight: size.height,
            width: swaps ? size.height : size.width, height: swaps ? size.width : size.height,
            bitDepth: bitDepth, channels: channels)
    }

    private static func describe(_ property: HEIFProperty) -> String {
        switch property.value {
        case .rotation(let turns): return "irot \(turns * 90)° counter-clockwise"
        case .mirror(let axis): return axis == 0 ? "imir top-bottom" : "imir left-right"
        default: return property.type
        }
    }

    /// The namespace prefixes an XMP packet declares (`xmlns:apdi=...` gives "apdi"); none when it is not readable XMP.
    package static func namespaces(_ xmp: Data) -> [String] { (try? XMPPacket(xmp))?.namespacePrefixes ?? [] }
}

extension HEIFInspector {
    /// The libheif this machine links, for reports.
    package static var libheifVersion: String { String(cString: heif_get_version()) }

    /// Whether libheif's own API opens the file, and what it sees or says.
    package static func libheifVerdict(at url: URL) -> String {
        do {
            let description = try Libheif.describe(try HEIFReader.readBytes(url))
            let auxiliary = description.split(separator: "\n").filter { $0.hasPrefix("aux ") }.count
            return "opens it (\(auxiliary) auxiliary image\(auxiliary == 1 ? "" : "s") listed)"
        } catch {
            return "refuses it: \(error)"
        }
    }
}
