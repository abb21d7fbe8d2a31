import MatteboxISOBMFF
/// Copies one image item (a coded `hvc1` or `av01`, a `grid` with its tiles, or an `iovl`
/// overlay with the images it lays on its canvas) out of a HEIF
/// file: into a small file of its own, without transforms or auxiliary links,
/// so libheif decodes exactly that item as stored, whatever else the original
/// holds (including the multi-target references libheif 1.15 refuses); or
/// into a file being written, when the image did not change.
enum ImageItemExtractor {
    /// Properties a decoder needs; transforms (`irot`, `imir`) and `auxC` stay behind.
    private static let decodingProperties: Set<String> = ["hvcC", "av1C", "ispe", "colr", "pixi", "clap"]
    /// Transforms, which a writer states anew for the photo's orientation.
    private static let transforms: Set<String> = ["irot", "imir"]
    /// The largest image Mattebox agrees to decode (a 24 MP iPhone photo is 24.5 MP).
    static let maximumPixels = 200_000_000
    static let maximumTiles = 4096

    struct Coding {
        let chromaFormat: Int
        let lumaBitDepth: Int
    }

    /// The item type of the coded pixels behind image item `id` (itself, or a
    /// grid's or overlay's first input): "hvc1", "av01", or nil.
    static func codedItemType(of id: UInt32, in container: HEIFFile) -> String? {
        guard let type = container.items[id]?.type else { return nil }
        if type == "grid" || type == "iovl" {
            return container.targets(of: id, by: "dimg").first.flatMap { codedItemType(of: $0, in: container) }
        }
        return ItemCodecs.storing(type) != nil ? type : nil
    }

    static func standaloneFile(for id: UInt32, in container: HEIFFile) throws -> ([UInt8], Coding) {
        var builder = HEIFBuilder()
        let (_, coding) = try copyImage(id, from: container, into: &builder, hidden: false)
        return (try builder.serialize(), coding)
    }

    /// Copies image item `id` byte for byte into `builder` with the properties
    /// a decoder needs: a coded item, or a `grid` with its tiles and `dimg`
    /// reference. The reader decodes through this; the writer passes an
    /// unchanged image through with it, `whole`: with every property but the
    /// transforms (HDR and colour metadata, `auxC`). Returns the new item's ID.
    static func copyImage(
        _ id: UInt32, from container: HEIFFile, into builder: inout HEIFBuilder, hidden: Bool, whole: Bool = false
    ) throws -> (id: UInt16, coding: Coding) {
        guard let item = container.items[id] else { throw HEIFError.malformed("image item \(id) does not exist") }
        try checkSize(of: id, in: container)
        switch item.type {
        case _ where ItemCodecs.storing(item.type) != nil:
            return try copy(id, into: &builder, from: container, hidden: hidden, whole: whole)
        case "grid":
            let gridData = try container.data(of: id)
            let tiles = container.targets(of: id, by: "dimg")
            guard !tiles.isEmpty else { throw HEIFError.malformed("grid item \(id) has no tiles") }
            guard tiles.count <= maximumTiles else {
                throw HEIFError.unsupported("grid item \(id) has \(tiles.count) tiles (at most \(maximumTiles))")
            }
            try checkGrid(gridData, tileCount: tiles.count, id: id)
            let grid = try builder.addItem(type: "grid", hidden: hidden, data: gridData)
            for (property, essential) in container.properties(of: id) where keeps(property.type, whole: whole) {
                builder.associate(grid, property: property.box, essential: essential)
            }
            var coding: Coding?
            var tileIDs: [UInt16] = []
            for tile in tiles {
                guard let type = container.items[tile]?.type, ItemCodecs.storing(type) != nil else {
                    throw HEIFError.malformed("grid item \(id) names item \(tile) as a tile, which is not a coded image")
                }
                try checkSize(of: tile, in: container)
                let copied = try copy(tile, into: &builder, from: container, hidden: true, whole: whole)
                tileIDs.append(copied.id)
                coding = copied.coding
            }
            builder.addReference("dimg", from: grid, to: tileIDs)
            return (grid, coding!)
        case "iovl":
            // An overlay: a canvas with its inputs placed on it (ISO/IEC 23008-12 6.6.2.3); libheif composes it.
            let inputs = container.targets(of: id, by: "dimg")
            guard !inputs.isEmpty else { throw HEIFError.malformed("overlay item \(id) has no input images") }
            guard inputs.count <= maximumTiles else {
                throw HEIFError.unsupported("overlay item \(id) has \(inputs.count) input images (at most \(maximumTiles))")
            }
            let overlay = try builder.addItem(type: "iovl", hidden: hidden, data: try container.data(of: id))
            for (property, essential) in container.properties(of: id) where keeps(property.type, whole: whole) {
                builder.associate(overlay, property: property.box, essential: essential)
            }
            var coding: Coding?
            var inputIDs: [UInt16] = []
            for input in inputs {
                // Inputs are coded images or grids, never overlays of overlays (no loops to follow).
                guard let type = container.items[input]?.type, ItemCodecs.storing(type) != nil || type == "grid" else {
                    throw HEIFError.malformed("overlay item \(id) names item \(input) as an input, which is not a coded image or grid")
                }
                let copied = try copyImage(input, from: container, into: &builder, hidden: true, whole: whole)
                inputIDs.append(copied.id)
                coding = coding ?? copied.coding
            }
            builder.addReference("dimg", from: overlay, to: inputIDs)
            return (overlay, coding!)
        default:
            throw HEIFError.unsupported("item \(id) is coded as '\(item.type)'; Mattebox decodes HEVC (hvc1), AV1 (av01), grids and overlays")
        }
    }

    private static func keeps(_ type: String, whole: Bool) -> Bool {
        whole ? !transforms.contains(type) : decodingProperties.contains(type)
    }

    private static func copy(
        _ id: UInt32, into builder: inout HEIFBuilder, from container: HEIFFile, hidden: Bool, whole: Bool
    ) throws -> (id: UInt16, coding: Coding) {
        let type = container.items[id]?.type ?? "hvc1"
        let copied = try builder.addItem(type: type, hidden: hidden, data: try container.data(of: id))
        var coding: Coding?
        for (property, essential) in container.properties(of: id) where keeps(property.type, whole: whole) {
            builder.associate(copied, property: property.box, essential: essential)
            if case .codingConfiguration(let chroma, let bits) = property.value {
                coding = Coding(chromaFormat: chroma, lumaBitDepth: bits)
            }
        }
        guard let coding else { throw HEIFError.malformed("image item \(id) has no decoder configuration ('hvcC' or 'av1C')") }
        return (copied, coding)
    }

    /// Absurd sizes are refused before anything is allocated for them.
    private static func checkSize(of id: UInt32, in container: HEIFFile) throws {
        guard let size = container.codedSize(of: id) else {
            throw HEIFError.malformed("image item \(id) has no 'ispe' size")
        }
        guard size.width > 0, size.height > 0, size.width <= 65_535, size.height <= 65_535,
            size.width * size.height <= maximumPixels
        else {
            throw HEIFError.unsupported(
                "image item \(id) claims \(size.width)x\(size.height) pixels (at most \(maximumPixels / 1_000_000) MP)")
        }
    }

    /// The grid descriptor must agree with the number of tiles referenced.
    private static func checkGrid(_ data: [UInt8], tileCount: Int, id: UInt32) throws {
        var reader = ByteReader(data)
        _ = try reader.u8("grid version")
        let flags = try reader.u8("grid flags")
        let rows = Int(try reader.u8("grid rows")) + 1, columns = Int(try reader.u8("grid columns")) + 1
        _ = flags
        guard rows * columns == tileCount else {
            throw HEIFError.malformed("grid item \(id) is \(columns)x\(rows) tiles but references \(tileCount)")
        }
    }
}
