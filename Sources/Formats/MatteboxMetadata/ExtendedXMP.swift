import Foundation
import MatteboxRuntime

/// XMP larger than one JPEG segment (64 KB): the main packet names it by a
/// GUID (`xmpNote:HasExtendedXMP`, the MD5 of the extension), and APP1 segments
/// headed "http://ns.adobe.com/xmp/extension/" carry it in pieces, each with
/// that GUID, the extension's full length and the piece's offset (XMP
/// Specification Part 3, 1.1.3.1). Google's Lens Blur puts its depth map and
/// the unblurred photo there. Why it exists: the pieces must be checked (the
/// GUID, every byte covered once, the digest) before the packet is trusted.
package enum ExtendedXMP {
    package static let header = Array("http://ns.adobe.com/xmp/extension/\0".utf8)
    package static let guidName = XMPName("http://ns.adobe.com/xmp/note/", "HasExtendedXMP", prefix: "xmpNote")

    /// The extension named by `guid`, reassembled from `segments` (each an APP1
    /// payload that starts with `header`). Throws naming what is wrong: no piece
    /// with that GUID, pieces disagreeing on the length, overlapping or missing
    /// bytes, or a digest that is not the GUID.
    package static func reassemble(guid: String, from payloads: [ArraySlice<UInt8>]) throws(XMPError) -> Data {
        let wanted = Array(guid.uppercased().utf8)
        guard wanted.count == 32 else { throw XMPError("the extended XMP's GUID \(guid) is not 32 hex digits") }
        var total: Int?
        var pieces: [(offset: Int, bytes: ArraySlice<UInt8>)] = []
        for payload in payloads {
            let bytes = payload.dropFirst(header.count)
            guard bytes.count >= 40 else { throw XMPError("an extended XMP segment is cut short before its GUID, length and offset") }
            let start = bytes.startIndex
            let guidBytes = bytes[start..<start + 32].map { $0 >= 0x61 && $0 <= 0x66 ? $0 - 32 : $0 }
            guard guidBytes == wanted else { continue }
            let length = bytes[(start + 32)..<(start + 36)].reduce(0) { $0 << 8 | Int($1) }
            let offset = bytes[(start + 36)..<(start + 40)].reduce(0) { $0 << 8 | Int($1) }
            guard length > 0, length <= 64 << 20 else { throw XMPError("the extended XMP claims \(length) bytes") }
            if let total, total != length { throw XMPError("the extended XMP's pieces disagree on its length (\(total) and \(length) bytes)") }
            total = length
            pieces.append((offset, bytes.dropFirst(40)))
        }
        guard let total else { throw XMPError("no extended XMP piece has the GUID \(guid) the main packet names") }
        var assembled = [UInt8](repeating: 0, count: total)
        var covered = 0
        for piece in pieces.sorted(by: { $0.offset < $1.offset }) {
            guard piece.offset == covered else {
                throw XMPError(piece.offset < covered
                    ? "the extended XMP's pieces overlap at byte \(piece.offset)"
                    : "the extended XMP misses bytes \(covered)..<\(piece.offset) (a piece is lost or out of place)")
            }
            guard covered + piece.bytes.count <= total else { throw XMPError("an extended XMP piece runs past the \(total) bytes it claims") }
            assembled.replaceSubrange(covered..<(covered + piece.bytes.count), with: piece.bytes)
            covered += piece.bytes.count
        }
        guard covered == total else { throw XMPError("the extended XMP ends at byte \(covered) of the \(total) it claims") }
        guard ContentHash.md5GUID(assembled) == String(decoding: wanted, as: UTF8.self) else {
            throw XMPError("the extended XMP's content does not match its GUID (MD5)")
        }
        return Data(assembled)
    }

    /// The extension a JPEG's main XMP packet names, reassembled; nil when it names none.
    package static func read(jpeg: [UInt8], main: XMPPacket) throws(XMPError) -> XMPPacket? {
        guard let guid = main.value(guidName) else { return nil }
        let payloads = JPEGSegments.segments(of: jpeg).filter { $0.marker == 0xE1 && $0.starts(with: header) }.map(\.payload)
        let data = try reassemble(guid: guid, from: payloads)
        return try XMPPacket(data)
    }
}
