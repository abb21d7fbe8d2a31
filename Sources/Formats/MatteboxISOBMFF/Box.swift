/// One ISOBMFF box located in a file: its type, where it starts and ends, and
/// where its payload (after the header) lies.
package struct Box {
    package let type: String
    package let range: Range<Int>
    package let payload: Range<Int>

    /// Limits that keep a hostile file from costing much: boxes per level and
    /// nesting are far above what any camera writes.
    package static let maximumBoxesPerLevel = 100_000

    /// The header at `reader`'s position: the box's type, its whole size (a size of 0 means
    /// the `available` bytes to the end of its parent) and the header's own length.
    package static func header(_ reader: inout ByteReader, available: Int) throws -> (type: String, size: Int, headerLength: Int) {
        let start = reader.position
        let size32 = try reader.u32("a box size")
        let type = try reader.fourCC("a box type")
        let size: Int
        switch size32 {
        case 0: size = available
        case 1: size = try reader.uint(size: 8, "box '\(type)' large size")
        default: size = Int(size32)
        }
        if type == "uuid" { try reader.skip(16, "box 'uuid' user type") }
        return (type, size, reader.position - start)
    }

    /// The boxes that tile `range` one after another. A size that runs past the
    /// end, or is smaller than its own header, is an error.
    package static func children(of bytes: [UInt8], in range: Range<Int>, parent: String) throws -> [Box] {
        let (boxes, damage) = childrenUpToDamage(of: bytes, in: range, parent: parent)
        if let damage { throw damage }
        return boxes
    }

    /// The boxes that tile `range` up to the first damaged one, and what is wrong with it (nil
    /// when every box is sound): a file whose trailing boxes were damaged keeps those before.
    package static func childrenUpToDamage(of bytes: [UInt8], in range: Range<Int>, parent: String) -> (boxes: [Box], damage: HEIFError?) {
        var reader = ByteReader(bytes, range: range)
        var boxes: [Box] = []
        do {
            while !reader.isAtEnd {
                guard boxes.count < maximumBoxesPerLevel else {
                    throw HEIFError.malformed("more than \(maximumBoxesPerLevel) boxes in '\(parent)'")
                }
                // Trailing padding shorter than a box header is tolerated, as libheif does.
                if reader.remaining < 8 { break }
                let start = reader.position
                let (type, size, headerLength) = try header(&reader, available: range.upperBound - start)
                guard size >= headerLength else {
                    throw HEIFError.malformed("box '\(type)' at offset \(start) says size \(size), smaller than its header")
                }
                guard size <= range.upperBound - start else {
                    throw HEIFError.malformed(
                        "box '\(type)' at offset \(start) says size \(size), but '\(parent)' has only \(range.upperBound - start) bytes left (truncated file?)"
                    )
                }
                boxes.append(Box(type: type, range: start..<start + size, payload: reader.position..<start + size))
                try reader.skip(size - headerLength)
            }
        } catch let error as HEIFError {
            return (boxes, error)
        } catch {
            return (boxes, .malformed("\(error)"))
        }
        return (boxes, nil)
    }

    /// A reader over the payload, past the version and flags of a FullBox.
    package func fullBoxReader(_ bytes: [UInt8]) throws -> (reader: ByteReader, version: UInt8, flags: UInt32) {
        var reader = ByteReader(bytes, range: payload)
        let word = try reader.u32("'\(type)' version and flags")
        return (reader, UInt8(word >> 24), word & 0xFF_FFFF)
    }
}

extension Array where Element == Box {
    package func first(_ type: String) -> Box? { first { $0.type == type } }

    package func required(_ type: String, in parent: String) throws -> Box {
        guard let box = first(type) else { throw HEIFError.malformed("no '\(type)' box in '\(parent)'") }
        return box
    }
}
