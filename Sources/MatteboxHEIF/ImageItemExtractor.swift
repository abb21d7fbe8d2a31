import MatteboxISOBMFF
/// Copies one image item (an `hvc1`, or a `grid` with its tiles) out of a HEIF
/// file into a small file of its own, without transforms or auxiliary links,
/// so libheif decodes exactly that item as stored, whatever else the original
/// holds (including the multi-target references libheif 1.15 refuses).
enum ImageItemExtractor {
    /// Properties a decoder needs; transforms (`irot`, `imir`) and `auxC` stay behind.
    private static let decodingProperties: Set<String> = ["hvcC", "ispe", "colr", "pixi", "clap"]
    /// The largest image Mattebox agrees to decode (a 24 MP iPhone photo is 24.5 MP).
    static let maximumPixels = 200_000_000
    static let maximumTiles = 4096

    struct Coding {
        let chromaFormat: Int
        let lumaBitDepth: Int
    }

    static func standaloneFile(for id: UInt32, in container: HEIFContainer) throws -> ([UInt8], Coding) {
        guard let item = container.items[id] else { throw HEIFError.malformed("image item \(id) does not exist") }
        try checkSize(of: id, in: container)
        var builder = HEIFBuilder()
        switch item.type {
        case "hvc1":
            let coding = try copy(id, into: &builder, from: container, hidden: false)
            return (try builder.serialize(), coding)
        case "grid":
            let gridData = try container.data(of: id)
            let tiles = container.targets(of: id, by: "dimg")
            guard !tiles.isEmpty else { throw HEIFError.malformed("grid item \(id) has no tiles") }
            guard tiles.count <= maximumTiles else {
                throw HEIFError.unsupported("grid item \(id) has \(tiles.count) tiles (at most \(maximumTiles))")
            }
            try checkGrid(gridData, tileCount: tiles.count, id: id)
            let grid = try builder.addItem(type: "grid", hidden: false, data: gridData)
            for (property, essential) in container.properties(of: id)
            where decodingProperties.contains(property.type) {
                builder.associate(grid, property: property.box, essential: essential)
            }
            var coding: Coding?
            var tileIDs: [UInt16] = []
            for tile in tiles {
                guard container.items[tile]?.type == "hvc1" else {
                    throw HEIFError.malformed("grid item \(id) names item \(tile) as a tile, which is not an hvc1 image")
                }
                try checkSize(of: tile, in: container)
                tileIDs.append(UInt16(builder.itemCount + 1))
                coding = try copy(tile, into: &builder, from: container, hidden: true)
            }
            builder.addReference("dimg", from: grid, to: tileIDs)
            return (try builder.serialize(), coding!)
        default:
            throw HEIFError.unsupported("item \(id) is coded as '\(item.type)'; Mattebox decodes HEVC (hvc1) and grids")
        }
    }

    @discardableResult
    private static func copy(
        _ id: UInt32, into builder: inout HEIFBuilder, from container: HEIFContainer, hidden: Bool
    ) throws -> Coding {
        let copied = try builder.addItem(type: "hvc1", hidden: hidden, data: try container.data(of: id))
        var coding: Coding?
        for (property, essential) in container.properties(of: id) where decodingProperties.contains(property.type) {
            builder.associate(copied, property: property.box, essential: essential)
            if case .hevcConfiguration(let chroma, let bits) = property.value {
                coding = Coding(chromaFormat: chroma, lumaBitDepth: bits)
            }
        }
        guard let coding else { throw HEIFError.malformed("image item \(id) has no 'hvcC' decoder configuration") }
        return coding
    }

    /// Absurd sizes are refused before anything is allocated for them.
    private static func checkSize(of id: UInt32, in container: HEIFContainer) throws {
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
