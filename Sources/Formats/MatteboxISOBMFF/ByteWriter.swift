/// Big-endian bytes and ISOBMFF boxes, appended in order. A box's size is
/// patched in when its body is done, so nesting reads like the layout.
package struct ByteWriter {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    package var count: Int { bytes.count }

    package mutating func u8(_ value: UInt8) { bytes.append(value) }
    package mutating func u16(_ value: UInt16) { bytes += [UInt8(value >> 8), UInt8(value & 0xFF)] }
    package mutating func u32(_ value: UInt32) {
        bytes += [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
    package mutating func fourCC(_ code: String) {
        precondition(code.utf8.count == 4, "four-character code expected, got \(code)")
        bytes += Array(code.utf8)
    }
    package mutating func cString(_ text: String) { bytes += Array(text.utf8) + [0] }
    package mutating func append<S: Sequence>(_ data: S) where S.Element == UInt8 { bytes += data }

    /// A box whose body `content` writes; its 32-bit size is filled in after.
    package mutating func box(_ type: String, _ content: (inout ByteWriter) throws -> Void) rethrows {
        let start = bytes.count
        u32(0)
        fourCC(type)
        try content(&self)
        let size = UInt32(bytes.count - start)
        bytes[start] = UInt8(size >> 24)
        bytes[start + 1] = UInt8((size >> 16) & 0xFF)
        bytes[start + 2] = UInt8((size >> 8) & 0xFF)
        bytes[start + 3] = UInt8(size & 0xFF)
    }

    /// A FullBox: a box whose body starts with a version byte and 24 flag bits.
    package mutating func fullBox(
        _ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ content: (inout ByteWriter) throws -> Void
    ) rethrows {
        try box(type) { body in
            body.u32(UInt32(version) << 24 | (flags & 0xFF_FFFF))
            try content(&body)
        }
    }

    /// A standalone box as bytes (for properties that are shared by items).
    package static func box(_ type: String, _ content: (inout ByteWriter) throws -> Void) rethrows -> [UInt8] {
        var writer = ByteWriter()
        try writer.box(type, content)
        return writer.bytes
    }

    package static func fullBox(
        _ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ content: (inout ByteWriter) throws -> Void
    ) rethrows -> [UInt8] {
        var writer = ByteWriter()
        try writer.fullBox(type, version: version, flags: flags, content)
        return writer.bytes
    }
}
