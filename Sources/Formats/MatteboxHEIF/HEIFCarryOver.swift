import MatteboxISOBMFF

/// What a HEIF input holds beyond the photo's images and metadata, carried
/// into the file written from it where it still holds, and named where it
/// does not: derived images of images copied unchanged (iOS 18's `tmap` HDR
/// rendition of the primary and gain map), entity groups of copied items
/// (`altr`), and items Mattebox does not model.
enum HEIFCarryOver {
    /// Derived image types whose meaning rests only on their inputs and their own properties.
    static let derivedTypes: Set<String> = ["tmap", "iden", "iovl"]

    /// Copies the derived images whose inputs were all written with the same
    /// pixels (`copied`: input item → written item, copied as coded and extended
    /// here; `encodedAgain`: encoded again from unchanged pixels, as for another
    /// codec, which a derived image made from pixels still describes) and the
    /// entity groups whose members were; names the rest in `notKept`. Returns the
    /// brands the file then needs.
    ///
    /// A derived image is made from its inputs' output images, each already turned by its own
    /// `irot`/`imir` (HEIF 6.6.1; libheif's `iden` decodes its input so; iOS 18 writes its `tmap`
    /// at the photo's upright size with no turn of its own). So a derived image keeps its own
    /// properties, and one made from the primary takes the primary's size as shown
    /// (`shownSize`), which a stage may have turned.
    static func derivedImagesAndGroups(
        from source: HEIFFile, copied: inout [UInt32: UInt16], encodedAgain: [UInt32: UInt16] = [:],
        shownSize: (width: Int, height: Int), into builder: inout HEIFBuilder, notKept: inout [String]
    ) throws -> [String] {
        var brands: [String] = []
        var written = copied.merging(encodedAgain) { copy, _ in copy }
        for id in source.itemOrder {
            guard written[id] == nil, let item = source.items[id], derivedTypes.contains(item.type) else { continue }
            let inputs = source.targets(of: id, by: "dimg")
            guard !inputs.isEmpty, inputs.allSatisfy({ written[$0] != nil }) else {
                notKept.append("the '\(item.type)' derived image (item \(id)): an image it is made from was changed or left out")
                continue
            }
            let derived = try builder.addItem(type: item.type, hidden: item.isHidden, data: try source.data(of: id))
            let overPrimary = inputs.contains(source.primaryID)
            for (property, essential) in source.properties(of: id) {
                if overPrimary, property.type == "ispe" {
                    let ispe = ByteWriter.fullBox("ispe") { $0.u32(UInt32(shownSize.width)); $0.u32(UInt32(shownSize.height)) }
                    builder.associate(derived, property: ispe, essential: essential)
                } else {
                    builder.associate(derived, property: property.box, essential: essential)
                }
            }
            builder.addReference("dimg", from: derived, to: inputs.map { written[$0]! })
            written[id] = derived
            copied[id] = derived
            if item.type == "tmap" { brands.append("tmap") }
        }
        for group in source.entityGroups {
            if group.entities.allSatisfy({ written[$0] != nil }) {
                builder.addEntityGroup(group.type, items: group.entities.map { written[$0]! })
            } else {
                notKept.append("the '\(group.type)' group of items \(group.entities.map(String.init).joined(separator: ", "))")
            }
        }
        return brands
    }

    /// Image items other than the primary, its thumbnails, auxiliary images,
    /// tiles and derived images: the other pictures of a multi-image file, a
    /// stereo pair's other view, a burst.
    static func otherTopLevelImages(of source: HEIFFile) -> [UInt32] {
        let primary = source.primaryID
        var taken: Set<UInt32> = [primary]
        for reference in source.references where ["thmb", "auxl"].contains(reference.type) { taken.insert(reference.from) }
        for reference in source.references where reference.type == "dimg" { taken.formUnion(reference.to) }
        return source.itemOrder.filter { id in
            guard !taken.contains(id), let item = source.items[id], !item.isHidden else { return false }
            return ItemCodecs.storing(item.type) != nil || item.type == "grid"
        }
    }

    /// The other top-level images, copied as they are coded, transforms
    /// included (no stage changes them); `copied` gains them so groups that
    /// name them (a stereo pair's `ster`) follow.
    static func otherImages(
        from source: HEIFFile, copied: inout [UInt32: UInt16], into builder: inout HEIFBuilder
    ) throws {
        for id in otherTopLevelImages(of: source) where copied[id] == nil {
            let new = try ImageItemExtractor.copyImage(id, from: source, into: &builder, hidden: false, whole: true).id
            for transform in HEIFReader.transformProperties(of: id, in: source) {
                builder.associate(new, property: transform.box, essential: true)
            }
            copied[id] = new
        }
    }

    /// The other view of a stereo pair (`ster` entity group: left, right) whose left view is the primary.
    static func stereoPartner(of source: HEIFFile) -> UInt32? {
        source.entityGroups.first { $0.type == "ster" && $0.entities.count == 2 && $0.entities[0] == source.primaryID }?.entities[1]
    }

    /// Copies the metadata items (`cdsc`) that describe copied images, other
    /// than the EXIF and XMP the photo carries itself (those are written from
    /// it): e.g. Apple's `uri ` items. Those describing images that were
    /// encoded again are named in `notKept`.
    static func descriptions(
        from source: HEIFFile, copied: [UInt32: UInt16], into builder: inout HEIFBuilder, notKept: inout [String]
    ) throws {
        for image in modelledImages(of: source) {
            for id in source.items(referencing: image, by: "cdsc") where !isCarriedByThePhoto(id, in: source) {
                guard let item = source.items[id] else { continue }
                guard let target = copied[image] else {
                    notKept.append("item \(id) ('\(item.type)') describing item \(image), which was encoded again")
                    continue
                }
                let new = try builder.addItem(type: item.type, hidden: item.isHidden, data: try source.data(of: id), contentType: item.contentType)
                for (property, essential) in source.properties(of: id) { builder.associate(new, property: property.box, essential: essential) }
                builder.addReference("cdsc", from: new, to: [target])
            }
        }
    }

    /// EXIF and XMP items, which the reader takes into the photo and the writer writes from it.
    private static func isCarriedByThePhoto(_ id: UInt32, in source: HEIFFile) -> Bool {
        guard let item = source.items[id] else { return false }
        return item.type == "Exif" || (item.type == "mime" && item.contentType == "application/rdf+xml")
    }

    /// The primary, its thumbnails and auxiliary images.
    private static func modelledImages(of source: HEIFFile) -> Set<UInt32> {
        let primary = source.primaryID
        var images: Set<UInt32> = [primary]
        for type in ["thmb", "auxl"] { images.formUnion(source.items(referencing: primary, by: type)) }
        if let (_, gainMap) = HEIFReader.isoGainMapItem(in: source) { images.insert(gainMap) }
        return images
    }

    /// Items of `source` that are neither the photo's images (primary,
    /// thumbnails, auxiliary images, their tiles), nor metadata describing
    /// them, nor derived images: what no write of this photo keeps.
    static func unmodelledItems(of source: HEIFFile) -> [String] {
        var images = modelledImages(of: source).union(otherTopLevelImages(of: source))
        for image in images { images.formUnion(source.targets(of: image, by: "dimg")) }
        var known = images
        for image in images { known.formUnion(source.items(referencing: image, by: "cdsc")) }
        return source.itemOrder.compactMap { id in
            guard !known.contains(id), let item = source.items[id], !derivedTypes.contains(item.type) else { return nil }
            return "item \(id) ('\(item.type)\(item.contentType.map { ", \($0)" } ?? "")')"
        }
    }
}
