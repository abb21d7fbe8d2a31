import MatteboxISOBMFF
import Testing

/// The box layer alone: a file laid out by `HEIFBuilder` reads back through
/// `HEIFFile` with the same items, properties and references, and
/// hostile sizes fail with a `HEIFError` naming the box.
@Suite struct BoxLayerTests {
    /// Two items, the second hidden and linked to the first, sharing one property box.
    func twoItemFile() throws -> [UInt8] {
        var builder = HEIFBuilder()
        let primary = try builder.addItem(type: "hvc1", hidden: false, data: [1, 2, 3, 4])
        let aux = try builder.addItem(type: "hvc1", hidden: true, data: [5, 6, 7])
        let ispe = ByteWriter.fullBox("ispe", version: 0, flags: 0) { box in
            box.u32(64)
            box.u32(48)
        }
        builder.associate(primary, property: ispe, essential: false)
        builder.associate(aux, property: ispe, essential: false)
        builder.addReference("auxl", from: aux, to: [primary])
        return try builder.serialize()
    }

    @Test func aBuiltFileReadsBackItemForItem() throws {
        let container = try HEIFFile(bytes: try twoItemFile())
        #expect(container.majorBrand == "heic")
        #expect(container.primaryID == 1)
        #expect(container.itemOrder == [1, 2])
        #expect(container.items[2]?.isHidden == true)
        #expect(try container.data(of: 1) == [1, 2, 3, 4])
        #expect(try container.data(of: 2) == [5, 6, 7])
        #expect(container.targets(of: 2, by: "auxl") == [1])
        #expect(container.items(referencing: 1, by: "auxl") == [2])
        #expect(container.codedSize(of: 2)! == (64, 48))
        #expect(container.properties.count == 1, "identical property boxes are stored once")
        #expect(HEIFFile.looksLikeHEIF(Array(try twoItemFile().prefix(64))))
    }

    @Test func aBoxSizePastTheEndIsMalformedAndNamesTheBox() throws {
        var bytes = try twoItemFile()
        // The first box is ftyp: claim it is far larger than the file.
        bytes[0] = 0x7F
        #expect(throws: HEIFError.self) { try HEIFFile(bytes: bytes) }
        do {
            _ = try HEIFFile(bytes: bytes)
        } catch let error as HEIFError {
            #expect(error.description.contains("'ftyp'"), "\(error)")
        }
    }

    @Test func readsAreBoundedByTheRangeGiven() throws {
        var reader = ByteReader([0, 0, 0, 9, 1, 2], range: 0..<4)
        #expect(try reader.u32() == 9)
        #expect(reader.isAtEnd)
        #expect(throws: HEIFError.self) { try reader.u8() }
    }
}
