/// An item of a HEIF file (`infe` plus its `iloc` entry): an image, a tile,
/// EXIF, XMP, a grid.
package struct HEIFItem {
    package let id: UInt32
    package let type: String
    package let isHidden: Bool
    /// A `mime` item's content type, or a `uri ` item's URI type (the same place in `infe`).
    package let contentType: String?
    /// Where the item's bytes are: file ranges, or ranges of `idat`.
    package var extents: [Range<Int>] = []
    package var inItemData = false
}

/// A typed link between items (`iref` child): `auxl`, `cdsc`, `dimg`, `thmb`.
/// An entity group of `grpl` (e.g. `altr`: alternatives of one another, such
/// as iOS 18's tone-mapped HDR rendition and the primary).
package struct HEIFEntityGroup: Equatable, Sendable {
    package let type: String
    package let id: UInt32
    package let entities: [UInt32]
}

package struct HEIFReference: Equatable {
    package let type: String
    package let from: UInt32
    package let to: [UInt32]
}

/// The structure of a HEIF file as its boxes state it: items, properties,
/// their associations and references, parsed with every size and count
/// checked against the bytes that are really there.
///
/// Mattebox reads HEIF itself (rather than through libheif's API) so it can
/// see every auxiliary item, including files libheif 1.15 refuses.
package struct HEIFFile {
    package let bytes: [UInt8]
    package let majorBrand: String
    package let compatibleBrands: [String]
    package let primaryID: UInt32
    /// The file's top-level boxes (`ftyp`, `meta`, `mdat`, and whatever else follows).
    package let topLevelBoxes: [Box]
    package private(set) var items: [UInt32: HEIFItem] = [:]
    /// Item IDs in `iinf` order.
    package private(set) var itemOrder: [UInt32] = []
    package private(set) var properties: [HEIFProperty] = []
    /// Per item: (index into `properties`, essential), in `ipma` order.
    package private(set) var associations: [UInt32: [(index: Int, essential: Bool)]] = [:]
    package private(set) var references: [HEIFReference] = []
    package private(set) var entityGroups: [HEIFEntityGroup] = []
    private var itemData: Range<Int>?

    /// Brands of HEIF image files: HEVC ones, AV1 ones (AVIF) and the general `mif1`/`msf1`.
    package static let imageBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "MiHE", "avif", "avis"]

    /// True when the bytes start with an `ftyp` naming a HEIF image brand (HEIC or AVIF).
    package static func looksLikeHEIF(_ prefix: [UInt8]) -> Bool {
        fileBrands(prefix).contains { imageBrands.contains($0) }
    }

    /// The major and compatible brands of the `ftyp` box a file starts with
    /// (empty when it does not start with one), read from its first bytes.
    package static func fileBrands(_ prefix: [UInt8]) -> [String] {
        guard prefix.count >= 12, BoxType.string(prefix[4..<8]) == "ftyp" else { return [] }
        let size = min(prefix.count, Int(prefix[0]) << 24 | Int(prefix[1]) << 16 | Int(prefix[2]) << 8 | Int(prefix[3]))
        var brands = [BoxType.string(prefix[8..<12])]
        var offset = 16
        while offset + 4 <= size {
            brands.append(BoxType.string(prefix[offset..<offset + 4]))
            offset += 4
        }
        return brands
    }

    /// What was wrong with the boxes after the image's own (`meta`, its data): a damaged Motion
    /// Photo movie, a torn trailer. They are left out; the images stand.
    package let trailingDamage: String?

    package init(bytes: [UInt8]) throws {
        self.bytes = bytes
        let (top, damage) = Box.childrenUpToDamage(of: bytes, in: 0..<bytes.count, parent: "file")
        // Damage before the meta box, or inside what it needs, is the file's; after it, only what follows is lost.
        if let damage, !top.contains(where: { $0.type == "meta" }) { throw damage }
        topLevelBoxes = top
        trailingDamage = damage.map { "\($0)" }
        guard let ftyp = top.first, ftyp.type == "ftyp" else {
            throw HEIFError.malformed("the file does not start with an 'ftyp' box")
        }
        var reader = ByteReader(bytes, range: ftyp.payload)
        majorBrand = try reader.fourCC("major brand")
        try reader.skip(4, "minor version")
        var brands: [String] = []
        while reader.remaining >= 4 { brands.append(try reader.fourCC()) }
        compatibleBrands = brands
        guard ([majorBrand] + brands).contains(where: HEIFFile.imageBrands.contains) else {
            throw HEIFError.unsupported("brands \(([majorBrand] + brands).joined(separator: ", ")) name no HEIF image format")
        }
        let meta = try top.required("meta", in: "file")
        var (metaReader, _, _) = try meta.fullBoxReader(bytes)
        let children = try Box.children(of: bytes, in: metaReader.position..<meta.payload.upperBound, parent: "meta")
        _ = metaReader.rest()

        let handler = try children.required("hdlr", in: "meta")
        var (hdlr, _, _) = try handler.fullBoxReader(bytes)
        try hdlr.skip(4, "hdlr pre_defined")
        let handlerType = try hdlr.fourCC("handler type")
        guard handlerType == "pict" else { throw HEIFError.unsupported("handler '\(handlerType)', not 'pict'") }

        var (pitm, pitmVersion, _) = try children.required("pitm", in: "meta").fullBoxReader(bytes)
        primaryID = pitmVersion == 0 ? UInt32(try pitm.u16("primary item ID")) : try pitm.u32("primary item ID")

        itemData = children.first("idat")?.payload
        try parseItemInfo(try children.required("iinf", in: "meta"))
        try parseLocations(try children.required("iloc", in: "meta"))
        if let iref = children.first("iref") { try parseReferences(iref) }
        if let grpl = children.first("grpl") { try parseEntityGroups(grpl) }
        let iprp = try children.required("iprp", in: "meta")
        let iprpChildren = try Box.children(of: bytes, in: iprp.payload, parent: "iprp")
        try parseProperties(try iprpChildren.required("ipco", in: "iprp"))
        for ipma in iprpChildren where ipma.type == "ipma" { try parseAssociations(ipma) }

        guard items[primaryID] != nil else {
            throw HEIFError.malformed("primary item \(primaryID) is not among the \(items.count) items")
        }
    }

    // MARK: Parsing

    private mutating func parseEntityGroups(_ grpl: Box) throws {
        for group in try Box.children(of: bytes, in: grpl.payload, parent: "grpl") {
            var (reader, _, _) = try group.fullBoxReader(bytes)
            let id = try reader.u32("entity group ID")
            let count = Int(try reader.u32("entity count"))
            guard count <= reader.remaining / 4 else {
                throw HEIFError.malformed("entity group \(id) claims \(count) entities in \(reader.remaining) bytes")
            }
            let entities = try (0..<count).map { _ in try reader.u32("entity ID") }
            entityGroups.append(HEIFEntityGroup(type: group.type, id: id, entities: entities))
        }
    }

    private mutating func parseItemInfo(_ iinf: Box) throws {
        var (reader, version, _) = try iinf.fullBoxReader(bytes)
        let count = version == 0 ? Int(try reader.u16("iinf count")) : Int(try reader.u32("iinf count"))
        let entries = try Box.children(of: bytes, in: reader.position..<iinf.payload.upperBound, parent: "iinf")
            .filter { $0.type == "infe" }
        guard entries.count == count else {
            throw HEIFError.malformed("'iinf' says \(count) items but holds \(entries.count)")
        }
        for entry in entries {
            var (infe, infeVersion, flags) = try entry.fullBoxReader(bytes)
            guard infeVersion >= 2 else { continue }  // v0/v1 entries describe no image item types
            let id = infeVersion == 2 ? UInt32(try infe.u16("item ID")) : try infe.u32("item ID")
            try infe.skip(2, "item protection index")
            let type = try infe.fourCC("item type")
            _ = try infe.cString("item name")
            let contentType = type == "mime" || type == "uri " ? try infe.cString("content or URI type") : nil
            guard items[id] == nil else { throw HEIFError.malformed("item \(id) is declared twice") }
            items[id] = HEIFItem(id: id, type: type, isHidden: flags & 1 != 0, contentType: contentType)
            itemOrder.append(id)
        }
    }

    private mutating func parseLocations(_ iloc: Box) throws {
        var (reader, version, _) = try iloc.fullBoxReader(bytes)
        guard version <= 2 else { throw HEIFError.unsupported("'iloc' version \(version)") }
        let sizes = try reader.u8("iloc offset/length sizes")
        let offsetSize = Int(sizes >> 4), lengthSize = Int(sizes & 0xF)
        let moreSizes = try reader.u8("iloc base offset/index sizes")
        let baseOffsetSize = Int(moreSizes >> 4)
        let indexSize = version == 0 ? 0 : Int(moreSizes & 0xF)
        let count = version < 2 ? Int(try reader.u16("iloc count")) : Int(try reader.u32("iloc count"))
        // Each entry takes at least 6 bytes: a hostile count fails here, not after a huge loop.
        try reader.need(count * 6, "\(count) 'iloc' entries")
        for _ in 0..<count {
            let id = version < 2 ? UInt32(try reader.u16("iloc item ID")) : try reader.u32("iloc item ID")
            var method = 0
            if version >= 1 { method = Int(try reader.u16("construction method") & 0xF) }
            try reader.skip(2, "data reference index")
            let base = try reader.uint(size: baseOffsetSize, "base offset")
            let extentCount = Int(try reader.u16("extent count"))
            var extents: [Range<Int>] = []
            for _ in 0..<extentCount {
                _ = try reader.uint(size: indexSize, "extent index")
                let offset = try reader.uint(size: offsetSize, "extent offset")
                let length = try reader.uint(size: lengthSize, "extent length")
                extents.append(try locate(item: id, method: method, start: base + offset, length: length))
            }
            guard var item = items[id] else { continue }  // a location for an undeclared item is ignored
            item.extents = extents
            item.inItemData = method == 1
            items[id] = item
        }
    }

    private func locate(item: UInt32, method: Int, start: Int, length: Int) throws -> Range<Int> {
        let limit: Int
        switch method {
        case 0: limit = bytes.count
        case 1:
            guard let itemData else { throw HEIFError.malformed("item \(item) lies in 'idat', but there is none") }
            limit = itemData.count
        default: throw HEIFError.unsupported("item \(item) uses construction method \(method)")
        }
        guard length > 0 else { throw HEIFError.unsupported("item \(item) has an extent of unspecified length") }
        guard start >= 0, start <= limit, length <= limit - start else {
            throw HEIFError.malformed(
                "item \(item) says its data lies at \(start)..<\(start + length), past the end (\(limit) bytes; truncated file?)")
        }
        return start..<start + length
    }

    private mutating func parseReferences(_ iref: Box) throws {
        var (reader, version, _) = try iref.fullBoxReader(bytes)
        let boxes = try Box.children(of: bytes, in: reader.position..<iref.payload.upperBound, parent: "iref")
        _ = reader.rest()
        for box in boxes {
            var entry = ByteReader(bytes, range: box.payload)
            let wide = version != 0
            let from = wide ? try entry.u32("reference source") : UInt32(try entry.u16("reference source"))
            let count = Int(try entry.u16("reference count"))
            try entry.need(count * (wide ? 4 : 2), "\(count) '\(box.type)' references")
            let targets = try (0..<count).map { _ in
                wide ? try entry.u32("reference target") : UInt32(try entry.u16("reference target"))
            }
            references.append(HEIFReference(type: box.type, from: from, to: targets))
        }
    }

    private mutating func parseProperties(_ ipco: Box) throws {
        properties = try Box.children(of: bytes, in: ipco.payload, parent: "ipco").map {
            try HEIFProperty.parse($0, in: bytes)
        }
    }

    private mutating func parseAssociations(_ ipma: Box) throws {
        var (reader, version, flags) = try ipma.fullBoxReader(bytes)
        let count = Int(try reader.u32("ipma count"))
        try reader.need(count * 3, "\(count) 'ipma' entries")
        for _ in 0..<count {
            let id = version < 1 ? UInt32(try reader.u16("ipma item ID")) : try reader.u32("ipma item ID")
            let associationCount = Int(try reader.u8("association count"))
            var list: [(Int, Bool)] = []
            for _ in 0..<associationCount {
                let raw = flags & 1 != 0 ? Int(try reader.u16("association")) : Int(try reader.u8("association"))
                let essential = flags & 1 != 0 ? raw & 0x8000 != 0 : raw & 0x80 != 0
                let index = flags & 1 != 0 ? raw & 0x7FFF : raw & 0x7F
                guard index > 0 else { continue }
                guard index <= properties.count else {
                    throw HEIFError.malformed("item \(id) names property \(index), but 'ipco' has \(properties.count)")
                }
                list.append((index - 1, essential))
            }
            associations[id, default: []] += list
        }
    }

    // MARK: Queries

    /// The item's bytes, joined from its extents.
    package func data(of id: UInt32) throws -> [UInt8] {
        guard let item = items[id] else { throw HEIFError.malformed("item \(id) does not exist") }
        guard !item.extents.isEmpty else { throw HEIFError.malformed("item \(id) (\(item.type)) has no data location") }
        let base = item.inItemData ? itemData!.lowerBound : 0
        var data: [UInt8] = []
        data.reserveCapacity(item.extents.reduce(0) { $0 + $1.count })
        for extent in item.extents { data += bytes[(base + extent.lowerBound)..<(base + extent.upperBound)] }
        return data
    }

    /// The item's properties with their essential flags, in association order.
    package func properties(of id: UInt32) -> [(property: HEIFProperty, essential: Bool)] {
        (associations[id] ?? []).map { (properties[$0.index], $0.essential) }
    }

    package func property(_ type: String, of id: UInt32) -> HEIFProperty? {
        properties(of: id).first { $0.property.type == type }?.property
    }

    /// Items that point at `target` with a reference of this type ("auxl" → aux items).
    package func items(referencing target: UInt32, by type: String) -> [UInt32] {
        references.filter { $0.type == type && $0.to.contains(target) }.map(\.from)
    }

    /// Items `source` points at with a reference of this type ("dimg" → tiles).
    package func targets(of source: UInt32, by type: String) -> [UInt32] {
        references.filter { $0.type == type && $0.from == source }.flatMap(\.to)
    }

    /// The coded size from `ispe` (before rotation).
    package func codedSize(of id: UInt32) -> (width: Int, height: Int)? {
        if case .imageSize(let width, let height)? = property("ispe", of: id)?.value { return (width, height) }
        return nil
    }
}
