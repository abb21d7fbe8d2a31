import Foundation

/// The part of Apple's EXIF maker note that pairs a Live Photo: tag 0x0011,
/// ContentIdentifier, an ASCII UUID that the paired movie repeats as
/// `com.apple.quicktime.content.identifier`. (ImageIO exposes it as key "17"
/// of kCGImagePropertyMakerAppleDictionary; ExifTool's Apple table names it
/// ContentIdentifier.) Layout as iPhones write it and ExifTool reads it: the
/// text "Apple iOS\0", version 1 (two bytes), "MM", then a big-endian IFD whose
/// value offsets count from the maker note's first byte.
package enum AppleMakerNote {
    static let header: [UInt8] = Array("Apple iOS".utf8) + [0, 0, 1] + Array("MM".utf8)
    static let contentIdentifierTag: UInt16 = 0x0011

    /// A maker note holding only the content identifier.
    package static func make(contentIdentifier: String) -> [UInt8] {
        let text = Array(contentIdentifier.utf8.filter { $0 != 0 }) + [0]
        let valueOffset = header.count + 2 + 12 + 4
        var bytes = header
        bytes += be16(1)
        bytes += be16(contentIdentifierTag) + be16(2) + be32(UInt32(text.count)) + be32(UInt32(valueOffset))
        bytes += be32(0)
        bytes += text
        return bytes
    }

    /// The content identifier of an Apple maker note, if it is one and holds it.
    package static func contentIdentifier(in note: ArraySlice<UInt8>) -> String? {
        guard let entry = entry(contentIdentifierTag, in: note), entry.type == 2 else { return nil }
        let text = entry.value.prefix { $0 != 0 }
        return String(decoding: text, as: UTF8.self)
    }

    /// Tag 0x0021 (33) and 0x0030 (48), the two numbers Apple's HDR headroom is computed from.
    static let hdrHeadroomTag: UInt16 = 0x0021, hdrGainTag: UInt16 = 0x0030

    /// A number of an Apple maker note (a signed or unsigned rational, a float or a double), if it holds one.
    package static func number(_ tag: UInt16, in note: ArraySlice<UInt8>) -> Double? {
        guard let entry = entry(tag, in: note), entry.count >= 1 else { return nil }
        let v = entry.value
        func u32(_ at: Int) -> UInt32 {
            let b = Array(v[(v.startIndex + at)..<(v.startIndex + at + 4)])
            return entry.bigEndian ? UInt32(b[0]) << 24 | UInt32(b[1]) << 16 | UInt32(b[2]) << 8 | UInt32(b[3])
                : UInt32(b[3]) << 24 | UInt32(b[2]) << 16 | UInt32(b[1]) << 8 | UInt32(b[0])
        }
        switch entry.type {
        case 5 where v.count >= 8: return u32(4) == 0 ? nil : Double(u32(0)) / Double(u32(4))
        case 10 where v.count >= 8:
            let (n, d) = (Int32(bitPattern: u32(0)), Int32(bitPattern: u32(4)))
            return d == 0 ? nil : Double(n) / Double(d)
        case 11 where v.count >= 4: return Double(Float(bitPattern: u32(0)))
        case 12 where v.count >= 8: return Double(bitPattern: UInt64(u32(entry.bigEndian ? 0 : 4)) << 32 | UInt64(u32(entry.bigEndian ? 4 : 0)))
        default: return nil
        }
    }

    /// One entry of the maker note's IFD: its type, count, value bytes and byte order.
    private static func entry(_ tag: UInt16, in note: ArraySlice<UInt8>)
        -> (type: Int, count: Int, value: ArraySlice<UInt8>, bigEndian: Bool)?
    {
        let note = Array(note)
        guard note.starts(with: Array("Apple iOS\0".utf8)), note.count >= header.count + 2 else { return nil }
        let bigEndian = note[12] == 0x4D
        func u16(_ at: Int) -> Int {
            bigEndian ? Int(note[at]) << 8 | Int(note[at + 1]) : Int(note[at + 1]) << 8 | Int(note[at])
        }
        func u32(_ at: Int) -> Int { bigEndian ? u16(at) << 16 | u16(at + 2) : u16(at + 2) << 16 | u16(at) }
        let count = u16(header.count)
        guard count < 512, header.count + 2 + count * 12 <= note.count else { return nil }
        let sizes = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 9: 4, 10: 8, 11: 4, 12: 8]
        for index in 0..<count {
            let at = header.count + 2 + index * 12
            guard u16(at) == Int(tag), let size = sizes[u16(at + 2)] else { continue }
            let items = u32(at + 4)
            guard items > 0, items < 1 << 20 else { return nil }
            let length = items * size
            let start = length <= 4 ? at + 8 : u32(at + 8)
            guard start >= 0, start + length <= note.count else { return nil }
            return (u16(at + 2), items, note[start..<start + length], bigEndian)
        }
        return nil
    }

    private static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    private static func be32(_ value: UInt32) -> [UInt8] { be16(UInt16(value >> 16)) + be16(UInt16(value & 0xFFFF)) }
}
