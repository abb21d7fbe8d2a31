/// A bounded big-endian cursor over part of a file. Every read checks the
/// bounds first, so a hostile size or count ends in a `HEIFError`, never in a
/// crash or an out-of-range index.
package struct ByteReader {
    package let bytes: [UInt8]
    package private(set) var position: Int
    package let end: Int

    package init(_ bytes: [UInt8], range: Range<Int>? = nil) {
        self.bytes = bytes
        let range = range ?? 0..<bytes.count
        self.position = range.lowerBound
        self.end = range.upperBound
    }

    package var remaining: Int { end - position }
    package var isAtEnd: Bool { position >= end }

    package mutating func need(_ count: Int, _ what: @autoclosure () -> String) throws {
        guard count >= 0, count <= remaining else {
            throw HEIFError.malformed("\(what()) needs \(count) bytes at offset \(position), only \(remaining) left")
        }
    }

    package mutating func u8(_ what: @autoclosure () -> String = "a byte") throws -> UInt8 {
        try need(1, what())
        defer { position += 1 }
        return bytes[position]
    }

    package mutating func u16(_ what: @autoclosure () -> String = "a 16-bit field") throws -> UInt16 {
        try need(2, what())
        defer { position += 2 }
        return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
    }

    package mutating func u32(_ what: @autoclosure () -> String = "a 32-bit field") throws -> UInt32 {
        try bigEndian(what())
    }

    package mutating func u64(_ what: @autoclosure () -> String = "a 64-bit field") throws -> UInt64 {
        try bigEndian(what())
    }

    /// The next big-endian integer of T's width.
    private mutating func bigEndian<T: FixedWidthInteger>(_ what: String) throws -> T {
        let count = T.bitWidth / 8
        try need(count, what)
        var value: T = 0
        for i in 0..<count { value = value << 8 | T(bytes[position + i]) }
        position += count
        return value
    }

    /// An unsigned integer of 0, 4 or 8 bytes (iloc's variable-size fields).
    package mutating func uint(size: Int, _ what: @autoclosure () -> String) throws -> Int {
        switch size {
        case 0: return 0
        case 4: return Int(try u32(what()))
        case 8:
            let value = try u64(what())
            guard value <= UInt64(Int.max) else { throw HEIFError.malformed("\(what()) is too large") }
            return Int(value)
        default: throw HEIFError.malformed("\(what()) has unsupported field size \(size)")
        }
    }

    package mutating func fourCC(_ what: @autoclosure () -> String = "a four-character code") throws -> String {
        try need(4, what())
        defer { position += 4 }
        return BoxType.string(bytes[position..<position + 4])
    }

    /// A NUL-terminated UTF-8 string; a missing NUL ends it at the bound.
    package mutating func cString(_ what: @autoclosure () -> String = "a string") throws -> String {
        let start = position
        while position < end, bytes[position] != 0 { position += 1 }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if position < end { position += 1 }
        return text
    }

    package mutating func skip(_ count: Int, _ what: @autoclosure () -> String = "skipped bytes") throws {
        try need(count, what())
        position += count
    }

    package mutating func take(_ count: Int, _ what: @autoclosure () -> String = "a payload") throws -> ArraySlice<UInt8> {
        try need(count, what())
        defer { position += count }
        return bytes[position..<position + count]
    }

    /// The rest of the range.
    package mutating func rest() -> ArraySlice<UInt8> {
        defer { position = end }
        return bytes[position..<end]
    }
}

/// Box types (four-character codes) as Swift strings (non-printable bytes shown as '?').
package enum BoxType {
    package static func string(_ bytes: ArraySlice<UInt8>) -> String {
        String(bytes.map { (0x20...0x7E).contains($0) ? Character(UnicodeScalar($0)) : "?" })
    }
}
