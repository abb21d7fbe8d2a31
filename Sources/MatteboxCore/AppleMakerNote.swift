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
        let note = Array(note)
        guard note.starts(with: Array("Apple iOS\0".utf8)), note.count >= header.count + 2 else { return nil }
        let bigEndian = note[12] == 0x4D
        func u16(_ at: Int) -> Int {
            bigEndian ? Int(note[at]) << 8 | Int(note[at + 1]) : Int(note[at + 1]) << 8 | Int(note[at])
        }
        func u32(_ at: Int) -> Int { bigEndian ? u16(at) << 16 | u16(at + 2) : u16(at + 2) << 16 | u16(at) }
        let count = u16(header.count)
        guard count < 512, header.count + 2 + count * 12 <= note.count else { return nil }
        for index in 0..<count {
            let entry = header.count + 2 + index * 12
            guard u16(entry) == Int(contentIdentifierTag), u16(entry + 2) == 2 else { continue }
            let length = u32(entry + 4)
            let start = length <= 4 ? entry + 8 : u32(entry + 8)
            guard length > 0, start >= 0, start + length <= note.count else { return nil }
            let text = note[start..<start + length].prefix { $0 != 0 }
            return String(decoding: text, as: UTF8.self)
        }
        return nil
    }

    private static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    private static func be32(_ value: UInt32) -> [UInt8] { be16(UInt16(value >> 16)) + be16(UInt16(value & 0xFFFF)) }
}
