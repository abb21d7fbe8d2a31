/// Assembles a HEIF file from items, properties and references, and lays it
/// out as `ftyp`, `meta`, `mdat` with `iloc` offsets pointing into `mdat`.
///
/// Identical property boxes are stored once and shared. IDs stay 16-bit (the
/// `infe` v2 / `iref` v0 / `ipma` v0 forms every reader accepts).
package struct HEIFBuilder {
    private struct Item {
        let id: UInt16
        let type: String
        let hidden: Bool
        let contentType: String?
        let data: [UInt8]
        var properties: [(index: Int, essential: Bool)] = []
    }

    package var majorBrand = "heic"
    package var compatibleBrands = ["mif1", "heic"]
    private var items: [Item] = []
    private var propertyBoxes: [[UInt8]] = []
    private var references: [(type: String, from: UInt16, to: [UInt16])] = []
    private var entityGroups: [(type: String, entities: [UInt16])] = []
    private var primaryID: UInt16 = 1

    package static let maximumItems = 60_000

    package init() {}

    package var itemCount: Int { items.count }

    /// Adds an item and returns its ID; the first item added is the primary.
    package mutating func addItem(type: String, hidden: Bool, data: [UInt8], contentType: String? = nil) throws -> UInt16 {
        guard items.count < HEIFBuilder.maximumItems else {
            throw HEIFError.unsupported("more than \(HEIFBuilder.maximumItems) items")
        }
        guard !data.isEmpty else { throw HEIFError.malformed("item of type '\(type)' has no data") }
        let id = UInt16(items.count + 1)
        items.append(Item(id: id, type: type, hidden: hidden, contentType: contentType, data: data))
        return id
    }

    package mutating func setPrimary(_ id: UInt16) { primaryID = id }

    /// Associates a property box (shared when an identical one exists).
    package mutating func associate(_ id: UInt16, property box: [UInt8], essential: Bool) {
        let index = propertyBoxes.firstIndex(of: box) ?? {
            propertyBoxes.append(box)
            return propertyBoxes.count - 1
        }()
        items[Int(id) - 1].properties.append((index, essential))
    }

    package mutating func addReference(_ type: String, from: UInt16, to: [UInt16]) {
        references.append((type, from, to))
    }

    /// Adds an entity group (`altr`, `ster`...) of items; its ID follows the item IDs.
    package mutating func addEntityGroup(_ type: String, items: [UInt16]) {
        entityGroups.append((type, items))
    }

    /// The whole file. `meta` is laid out twice: once to learn its size, then
    /// with the real `mdat` offsets (its size does not depend on them).
    package func serialize() throws -> [UInt8] {
        let ftyp = ByteWriter.box("ftyp") { box in
            box.fourCC(majorBrand)
            box.u32(0)
            for brand in compatibleBrands { box.fourCC(brand) }
        }
        let payloadSize = items.reduce(0) { $0 + $1.data.count }
        let draft = meta(dataStart: 0)
        let dataStart = ftyp.count + draft.count + 8
        guard dataStart + payloadSize <= Int(UInt32.max) else {
            throw HEIFError.unsupported("files over 4 GiB")
        }
        var file = ftyp + meta(dataStart: dataStart)
        var writer = ByteWriter()
        writer.box("mdat") { box in
            for item in items { box.append(item.data) }
        }
        file += writer.bytes
        return file
    }

    private func meta(dataStart: Int) -> [UInt8] {
        ByteWriter.fullBox("meta") { meta in
            meta.fullBox("hdlr") { box in
                box.u32(0)
                box.fourCC("pict")
                box.u32(0); box.u32(0); box.u32(0)
                box.cString("")
            }
            meta.fullBox("pitm") { $0.u16(primaryID) }
            meta.fullBox("iinf") { iinf in
                iinf.u16(UInt16(items.count))
                for item in items {
                    iinf.fullBox("infe", version: 2, flags: item.hidden ? 1 : 0) { infe in
                        infe.u16(item.id)
                        infe.u16(0)
                        infe.fourCC(item.type)
                        infe.cString("")
                        if let contentType = item.contentType { infe.cString(contentType) }
                    }
                }
            }
            if !references.isEmpty {
                meta.fullBox("iref") { iref in
                    for reference in references {
                        iref.box(reference.type) { box in
                            box.u16(reference.from)
                            box.u16(UInt16(reference.to.count))
                            for target in reference.to { box.u16(target) }
                        }
                    }
                }
            }
            if !entityGroups.isEmpty {
                meta.box("grpl") { grpl in
                    for (index, group) in entityGroups.enumerated() {
                        grpl.fullBox(group.type) { box in
                            box.u32(UInt32(items.count + 1 + index))  // group IDs share the item ID space
                            box.u32(UInt32(group.entities.count))
                            for entity in group.entities { box.u32(UInt32(entity)) }
                        }
                    }
                }
            }
            meta.box("iprp") { iprp in
                iprp.box("ipco") { ipco in
                    for property in propertyBoxes { ipco.append(property) }
                }
                let wide = propertyBoxes.count > 127
                iprp.fullBox("ipma", flags: wide ? 1 : 0) { ipma in
                    let described = items.filter { !$0.properties.isEmpty }
                    ipma.u32(UInt32(described.count))
                    for item in described {
                        ipma.u16(item.id)
                        ipma.u8(UInt8(item.properties.count))
                        for (index, essential) in item.properties {
                            if wide {
                                ipma.u16(UInt16(index + 1) | (essential ? 0x8000 : 0))
                            } else {
                                ipma.u8(UInt8(index + 1) | (essential ? 0x80 : 0))
                            }
                        }
                    }
                }
            }
            meta.fullBox("iloc", version: 1) { iloc in
                iloc.u8(0x44)  // offset and length: 4 bytes each
                iloc.u8(0x00)  // no base offset, no index
                iloc.u16(UInt16(items.count))
                var offset = dataStart
                for item in items {
                    iloc.u16(item.id)
                    iloc.u16(0)  // construction method 0: file offsets
                    iloc.u16(0)
                    iloc.u16(1)
                    iloc.u32(UInt32(offset))
                    iloc.u32(UInt32(item.data.count))
                    offset += item.data.count
                }
            }
        }
    }
}
