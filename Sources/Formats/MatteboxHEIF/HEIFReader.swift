import Foundation
import MatteboxCore
import MatteboxISOBMFF
import MatteboxMetadata
import MatteboxRuntime

/// Reads a HEIF file into a Photo: the primary image as stored (a single image
/// or a grid), its orientation from `irot`/`imir`, EXIF, XMP, ICC profile, and
/// every auxiliary image with its type URN, XMP and depth representation.
///
/// The structure comes from Mattebox's own box reader, so files libheif 1.15
/// refuses as a whole (iOS 18's multi-target references) are still read;
/// libheif decodes each image item on its own. The thumbnail is not loaded:
/// writers make a fresh one from the processed primary, or copy it with an
/// unchanged primary. Each image's coded origin is recorded (`codedOrigins`)
/// so the writer can pass unchanged images through.
package enum HEIFReader {
    /// The note that names auxiliary images left out because they could not be decoded.
    package static let damagedNote = "damagedAuxiliaryImages"
    /// The note that names what of the file's top-level boxes a rewrite cannot carry.
    package static let leftOutBoxesNote = "heifBoxes"
    /// The role a stereo pair's right view is read into, as the Depth plugin takes it.
    package static let stereoRightRole: ImageRole = "org.mattebox.stereo-right"

    /// True when a file starting with `header` (its first 256 bytes or so)
    /// is a HEIF image file this reader takes (HEIC or AVIF).
    package static func recognizes(_ header: [UInt8]) -> Bool {
        HEIFFile.looksLikeHEIF(header)
    }

    /// The primary image's item in a HEIF file's bytes.
    package static func primaryItem(of bytes: [UInt8]) throws -> UInt32 {
        try HEIFFile(bytes: bytes).primaryID
    }

    package static func readPhoto(at url: URL) throws -> Photo {
        let bytes = try readBytes(url)
        do {
            var photo = try readPhoto(bytes)
            photo.source = url
            return photo
        } catch let error as HEIFError {
            throw MatteboxError(error, file: url.path)
        }
    }

    /// The file's stored thumbnail (the item `thmb` points from to the primary), decoded
    /// alone, with the orientation it is displayed in; nil when the file has none.
    /// Far cheaper than the primary: a library shows this.
    package static func readThumbnail(at url: URL) throws -> Photo? {
        let container = try HEIFFile(bytes: try readBytes(url))
        guard let id = container.items(referencing: container.primaryID, by: "thmb").first else { return nil }
        var metadata = PhotoMetadata()
        let own = transformProperties(of: id, in: container)
        metadata.orientation = HEIFOrientation.orientation(
            of: own.isEmpty ? transformProperties(of: container.primaryID, in: container) : own)
        return Photo(primary: try Libheif.decode(id, in: container), metadata: metadata)
    }

    static func readPhoto(_ bytes: [UInt8]) throws -> Photo {
        let container = try HEIFFile(bytes: bytes)
        let primaryID = container.primaryID
        let primary = try Libheif.decode(primaryID, in: container)
        let primaryTransforms = transformProperties(of: primaryID, in: container)

        var metadata = PhotoMetadata(
            exif: try exif(of: primaryID, in: container), xmp: try xmp(describing: primaryID, in: container),
            iccProfile: iccProfile(of: primaryID, in: container))
        // HEIF readers follow irot/imir, not the EXIF tag; so does Mattebox.
        metadata.orientation = HEIFOrientation.orientation(of: primaryTransforms)

        let file = EncodedFile(bytes)
        metadata.codedOrigins[.primary] = CodedOrigin(
            file: file, item: primaryID, decoded: primary, iccProfile: metadata.iccProfile)
        var photo = Photo(primary: primary, metadata: metadata)
        var damaged: [String] = []
        for (id, urn, depth) in try auxiliaryItems(of: primaryID, in: container) {
            // An auxiliary image with no type says nothing of what it is (its `auxC` damaged): left out, named.
            guard !urn.trimmingCharacters(in: .whitespacesAndNewlines.union(.controlCharacters)).isEmpty else {
                damaged.append("item \(id): its auxiliary type ('auxC') is empty, so what it holds is unknown")
                continue
            }
            var role = AuxiliaryType.role(for: urn, depth: depth)
            var suffix = 2
            while photo.auxiliary[role] != nil {
                role = ImageRole("\(role.rawValue)-\(suffix)")
                suffix += 1
            }
            // One damaged auxiliary image costs only itself: the photo is read
            // without it, and a note names it and why.
            var image: PixelImage
            do {
                image = try Libheif.decode(id, in: container)
            } catch {
                damaged.append("\(role) (item \(id)): \(error)")
                continue
            }
            let transforms = transformProperties(of: id, in: container)
            if transforms.map(\.box) != primaryTransforms.map(\.box) {
                image = try StoredFrame.align(
                    image, from: HEIFOrientation.orientation(of: transforms), to: metadata.orientation)
            } else {
                photo.metadata.codedOrigins[role] = CodedOrigin(file: file, item: id, decoded: image)
            }
            photo.auxiliary[role] = image
            photo.metadata.auxiliaryInfo[role] = AuxiliaryImageInfo(
                typeURN: urn, xmp: try xmp(describing: id, in: container), depth: depth)
        }
        readISOGainMap(in: container, file: file, primaryTransforms: primaryTransforms, into: &photo, damaged: &damaged)
        // A stereo pair (iPhone spatial photos): the right view, for depth from stereo.
        if let right = HEIFCarryOver.stereoPartner(of: container), photo.auxiliary[stereoRightRole] == nil {
            do {
                let image = try Libheif.decode(right, in: container)
                if HEIFReader.transformProperties(of: right, in: container).map(\.box) == primaryTransforms.map(\.box) {
                    photo.auxiliary[stereoRightRole] = image
                    photo.metadata.codedOrigins[stereoRightRole] = CodedOrigin(file: file, item: right, decoded: image)
                } else {
                    photo.auxiliary[stereoRightRole] = try StoredFrame.align(
                        image, from: HEIFOrientation.orientation(of: transformProperties(of: right, in: container)),
                        to: metadata.orientation)
                }
            } catch {
                damaged.append("\(stereoRightRole) (item \(right)): \(error)")
            }
        }
        // A HEIC Motion Photo's movie travels with the photo (writers put it back).
        var leftOut = MotionPhotoVideoBox.unmodelledBoxes(in: container)
        if let (movie, trailer) = MotionPhotoVideoBox.movie(in: container) {
            photo.metadata.motionPhotoMovie = movie
            if let trailer { leftOut.append(trailer) }
        }
        if let damage = container.trailingDamage {
            leftOut.append("boxes after the image's own, damaged (\(damage))")
            if photo.metadata.motionPhotoMovie == nil, let xmp = photo.metadata.xmp, MotionPhotoXMP.claimsAMovie(xmp) {
                photo.metadata.notes[MotionPhotoXMP.unreadableMovieNote] =
                    "the Motion Photo's movie could not be read (its box is damaged): the still is kept, the movie left out"
            }
        }
        if !leftOut.isEmpty {
            photo.metadata.notes[leftOutBoxesNote] = "not kept: top-level " + leftOut.joined(separator: "; ")
        }
        if !damaged.isEmpty {
            photo.metadata.notes[damagedNote] = "could not be decoded, so left out: " + damaged.joined(separator: "; ")
        }
        return photo
    }

    /// A gain map only an ISO 21496-1 tone map refers to (libavif's, Adobe's, one Mattebox kept in
    /// that form): the `tmap` item over the primary and an image that is not one of its auxiliary
    /// images (iOS 18's tone map is over Apple's gain map, read as such), read under
    /// `ImageRole.isoGainMap` with the tone map's metadata.
    static func readISOGainMap(
        in container: HEIFFile, file: EncodedFile, primaryTransforms: [HEIFProperty], into photo: inout Photo, damaged: inout [String]
    ) {
        guard photo.auxiliary[.isoGainMap] == nil, let (toneMap, item) = isoGainMapItem(in: container) else { return }
        do {
            let payload = try container.data(of: toneMap)
            // Read to check it (a tone map Mattebox cannot read is named, not kept), kept as the file has it.
            _ = try GainMapMetadata(bytes: payload, leadingVersion: true)
            var image = try Libheif.decode(item, in: container)
            let transforms = transformProperties(of: item, in: container)
            if transforms.map(\.box) != primaryTransforms.map(\.box) {
                image = try StoredFrame.align(image, from: HEIFOrientation.orientation(of: transforms), to: photo.metadata.orientation)
            } else {
                photo.metadata.codedOrigins[.isoGainMap] = CodedOrigin(file: file, item: item, decoded: image)
            }
            photo.auxiliary[.isoGainMap] = image
            photo.metadata.auxiliaryInfo[.isoGainMap] = AuxiliaryImageInfo(source: "ISO 21496-1 gain map (item \(item), tone map item \(toneMap))")
            photo.metadata.gainMap.iso21496 = Array(payload.dropFirst())
        } catch {
            damaged.append("the ISO 21496-1 gain map (item \(item), tone map item \(toneMap)): \(error)")
        }
    }

    /// The tone map over the primary and a gain map that is not one of its auxiliary images, and that gain map.
    static func isoGainMapItem(in container: HEIFFile) -> (toneMap: UInt32, item: UInt32)? {
        guard let toneMap = container.items.values.filter({ $0.type == "tmap" }).map(\.id).min(),
            case let inputs = container.targets(of: toneMap, by: "dimg"), inputs.count == 2, inputs[0] == container.primaryID,
            !container.items(referencing: container.primaryID, by: "auxl").contains(inputs[1])
        else { return nil }
        return (toneMap, inputs[1])
    }

    static func readBytes(_ url: URL) throws -> [UInt8] {
        let size = try InputFile.checkReadable(url)
        guard size <= 2_000_000_000 else {
            throw MatteboxError("\(url.path): \(size) bytes is larger than Mattebox reads (2 GB)")
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw MatteboxError("\(url.path): cannot be read")
        }
        return [UInt8](data)
    }

    /// The auxiliary images of `id`: item, type URN and (for depth) representation.
    static func auxiliaryItems(of id: UInt32, in container: HEIFFile) throws
        -> [(id: UInt32, urn: String, depth: DepthRepresentation?)]
    {
        try container.items(referencing: id, by: "auxl").map { auxID in
            guard auxID != id else {
                throw HEIFError.malformed("item \(auxID) is named an auxiliary image of itself")
            }
            guard case .auxiliaryType(let urn, let subtype)? = container.property("auxC", of: auxID)?.value else {
                throw HEIFError.malformed("auxiliary item \(auxID) has no 'auxC' type")
            }
            return (auxID, urn, AuxiliaryType.isDepth(urn) ? try DepthRepresentationSEI.decode(subtype) : nil)
        }
    }

    static func transformProperties(of id: UInt32, in container: HEIFFile) -> [HEIFProperty] {
        container.properties(of: id).map(\.property).filter { $0.type == "irot" || $0.type == "imir" }
    }

    /// The EXIF item describing `id`: a 4-byte offset to the TIFF header, then the block.
    static func exif(of id: UInt32, in container: HEIFFile) throws -> ExifBlock? {
        guard let exifID = container.items(referencing: id, by: "cdsc").first(where: { container.items[$0]?.type == "Exif" })
        else { return nil }
        let data = try container.data(of: exifID)
        var reader = ByteReader(data)
        let offset = Int(try reader.u32("EXIF header offset"))
        guard offset <= data.count - 4 else {
            throw HEIFError.malformed("EXIF item \(exifID) says its TIFF header is at \(offset), past its \(data.count) bytes")
        }
        return ExifBlock(Array(data[(4 + offset)...]))
    }

    /// The XMP (`mime` application/rdf+xml) item describing `id`.
    static func xmp(describing id: UInt32, in container: HEIFFile) throws -> Data? {
        let xmpID = container.items(referencing: id, by: "cdsc").first {
            container.items[$0]?.type == "mime" && container.items[$0]?.contentType == "application/rdf+xml"
        }
        return try xmpID.map { Data(try container.data(of: $0)) }
    }

    /// The ICC profile of `id`, or, for a grid that has none of its own, of
    /// its first tile (older iPhones put `colr` on the tiles only).
    static func iccProfile(of id: UInt32, in container: HEIFFile) -> Data? {
        for (property, _) in container.properties(of: id) {
            if case .iccProfile(let bytes) = property.value { return Data(bytes) }
        }
        if container.items[id]?.type == "grid", let tile = container.targets(of: id, by: "dimg").first {
            return iccProfile(of: tile, in: container)
        }
        return nil
    }
}
