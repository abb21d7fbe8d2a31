import Foundation

/// The marker segments before a JPEG's scan that Mattebox does not model
/// (IPTC, extended XMP, MPF, comments, other APPn), so they can be carried
/// into a JPEG that is encoded again, or named when an output cannot hold them.
package enum JPEGSegments {
    /// One segment, marker and length included.
    package struct Segment {
        let marker: UInt8
        let bytes: ArraySlice<UInt8>

        func starts(with text: String) -> Bool { bytes.dropFirst(4).starts(with: Array(text.utf8)) }

        /// What it is, for notes; nil for what every JPEG writer makes anew
        /// (JFIF, EXIF, the standard XMP, ICC, Adobe's colour transform).
        package var kind: String? {
            switch marker {
            case 0xE0, 0xEE: return nil
            case 0xE1 where starts(with: "Exif\0\0") || starts(with: "http://ns.adobe.com/xap/1.0/\0"): return nil
            case 0xE1 where starts(with: "http://ns.adobe.com/xmp/extension/\0"): return "extended XMP"
            case 0xE2 where starts(with: "ICC_PROFILE\0"): return nil
            case 0xE2 where starts(with: "MPF\0"): return "MPF (secondary images)"
            case 0xED: return "IPTC/Photoshop (APP13)"
            case 0xFE: return "comment"
            case 0xE0...0xEF: return String(format: "APP%d", Int(marker - 0xE0))
            default: return nil
            }
        }

        /// MPF points at images after the scan: they belong to the file's own encoding.
        var isMPF: Bool { marker == 0xE2 && starts(with: "MPF\0") }
    }

    /// The segments between SOI and the scan.
    package static func segments(of jpeg: [UInt8]) -> [Segment] {
        guard jpeg.count > 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return [] }
        var result: [Segment] = []
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF, jpeg[offset + 1] != 0xDA {
            let end = offset + 2 + (Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3]))
            guard end > offset + 3, end <= jpeg.count else { break }
            result.append(Segment(marker: jpeg[offset + 1], bytes: jpeg[offset..<end]))
            offset = end
        }
        return result
    }

    /// What of `jpeg`'s own segments a file without them loses, by kind ("IPTC/Photoshop (APP13)").
    package static func unmodelledKinds(of jpeg: [UInt8]) -> [String] {
        var kinds: [String] = []
        for kind in segments(of: jpeg).compactMap(\.kind) where !kinds.contains(kind) { kinds.append(kind) }
        return kinds
    }

    /// `encoded` (a JPEG written anew) with `original`'s unmodelled segments
    /// put in after its own APPn segments, except MPF, whose secondary images
    /// stay with the original encoding; returns what was left out.
    static func carry(from original: [UInt8], into encoded: Data) -> (Data, dropped: [String]) {
        let carried = segments(of: original).filter { $0.kind != nil && !$0.isMPF }
        let dropped = segments(of: original).filter(\.isMPF).compactMap(\.kind)
        let bytes = [UInt8](encoded)
        guard !carried.isEmpty else { return (encoded, dropped) }
        // After SOI and the leading APPn segments the encoder wrote.
        var offset = 2
        for segment in segments(of: bytes) {
            guard (0xE0...0xEF).contains(segment.marker) else { break }
            offset = segment.bytes.endIndex
        }
        var output = Array(bytes[..<offset])
        for segment in carried { output += segment.bytes }
        output += bytes[offset...]
        return (Data(output), dropped)
    }

    /// `jpeg` without its MPF segment (for a file whose scan was rewritten).
    package static func withoutMPF(_ jpeg: [UInt8]) -> [UInt8] {
        let mpf = segments(of: jpeg).filter(\.isMPF)
        guard let first = mpf.first else { return jpeg }
        return Array(jpeg[..<first.bytes.startIndex]) + Array(jpeg[first.bytes.endIndex...])
    }
}
