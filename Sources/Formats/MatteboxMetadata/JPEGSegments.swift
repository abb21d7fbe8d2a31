import Foundation
import MatteboxRuntime

/// A JPEG's marker segments before its scan: the one walker of them. EXIF and
/// XMP are put in or replaced here (`replacingAPP1`); the segments Mattebox
/// does not model (IPTC, extended XMP, MPF, comments, other APPn) are carried
/// into a JPEG that is encoded again, or named when an output cannot hold them.
package enum JPEGSegments {
    package static let exifHeader = Array("Exif\0\0".utf8)
    package static let xmpHeader = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    /// One segment, marker and length included.
    package struct Segment {
        package let marker: UInt8
        package let bytes: ArraySlice<UInt8>

        package func starts(with text: String) -> Bool { bytes.dropFirst(4).starts(with: Array(text.utf8)) }
        package func starts(with header: [UInt8]) -> Bool { bytes.dropFirst(4).starts(with: header) }
        /// What follows the marker and length.
        package var payload: ArraySlice<UInt8> { bytes.dropFirst(4) }

        /// What it is, for notes; nil for what every JPEG writer makes anew
        /// (JFIF, EXIF, the standard XMP, ICC, Adobe's colour transform).
        package var kind: String? {
            switch marker {
            case 0xE0, 0xEE: return nil
            case 0xE1 where starts(with: "Exif\0\0") || starts(with: "http://ns.adobe.com/xap/1.0/\0"): return nil
            case 0xE1 where starts(with: "http://ns.adobe.com/xmp/extension/\0"): return "extended XMP"
            case 0xE2 where starts(with: "ICC_PROFILE\0"): return nil
            case 0xE2 where starts(with: "MPF\0"): return "MPF (secondary images)"
            case 0xE2 where starts(with: GainMapMetadata.jpegSegmentHeader): return "ISO 21496-1 gain map metadata"
            case 0xED: return "IPTC/Photoshop (APP13)"
            case 0xFE: return "comment"
            case 0xE0...0xEF: return String(format: "APP%d", Int(marker - 0xE0))
            default: return nil
            }
        }

        /// MPF points at images after the scan: they belong to the file's own encoding.
        package var isMPF: Bool { marker == 0xE2 && starts(with: "MPF\0") }
        /// ISO 21496-1's APP2: it describes the gain map MPF points at, and goes with it.
        package var isGainMapMetadata: Bool { marker == 0xE2 && starts(with: GainMapMetadata.jpegSegmentHeader) }
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

    /// Where the first image of `jpeg` ends (just after its EOI marker): its segments, then
    /// each scan's entropy-coded data (where 0xFF is followed by a stuffed 0 or a restart
    /// marker), until EOI. Nil when the image is cut short. What follows (MPF images, a
    /// Motion Photo's movie, Dynamic Depth items) is not the image's.
    package static func endOfImage(in jpeg: [UInt8]) -> Int? {
        guard jpeg.count > 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return nil }
        var offset = 2
        while offset + 2 <= jpeg.count {
            guard jpeg[offset] == 0xFF else { return nil }
            let marker = jpeg[offset + 1]
            if marker == 0xFF { offset += 1; continue } // fill bytes
            if marker == 0xD9 { return offset + 2 }
            if (0xD0...0xD7).contains(marker) || marker == 0x01 { offset += 2; continue }
            guard offset + 4 <= jpeg.count else { return nil }
            let end = offset + 2 + (Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3]))
            guard end > offset + 3, end <= jpeg.count else { return nil }
            offset = end
            guard marker == 0xDA else { continue }
            // The scan's data: up to the next marker that is neither stuffing nor a restart.
            while offset + 1 < jpeg.count {
                if jpeg[offset] == 0xFF, jpeg[offset + 1] != 0x00, !(0xD0...0xD7).contains(jpeg[offset + 1]) { break }
                offset += 1
            }
        }
        return nil
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
    package static func carry(from original: [UInt8], into encoded: Data) -> (Data, dropped: [String]) {
        let carried = segments(of: original).filter { $0.kind != nil && !$0.isMPF && !$0.isGainMapMetadata }
        let dropped = segments(of: original).filter { $0.isMPF || $0.isGainMapMetadata }.compactMap(\.kind)
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

    /// `jpeg` without its MPF segment and the gain map metadata that goes with it (for a file
    /// whose scan was rewritten, or whose images after the primary are not kept).
    package static func withoutMPF(_ jpeg: [UInt8]) -> [UInt8] {
        var output: [UInt8] = [], from = 0
        for segment in segments(of: jpeg) where segment.isMPF || segment.isGainMapMetadata {
            output += jpeg[from..<segment.bytes.startIndex]
            from = segment.bytes.endIndex
        }
        return from == 0 ? jpeg : output + jpeg[from...]
    }

    /// `jpeg` with `inserted` (whole segments) after its leading APPn segments, and where they start.
    package static func inserting(_ inserted: [[UInt8]], afterLeadingAPPnOf jpeg: [UInt8]) -> (bytes: [UInt8], at: Int) {
        var offset = 2
        for segment in segments(of: jpeg) {
            guard (0xE0...0xEF).contains(segment.marker) else { break }
            offset = segment.bytes.endIndex
        }
        return (Array(jpeg[..<offset]) + inserted.flatMap { $0 } + Array(jpeg[offset...]), offset)
    }

    /// The payload of the first APP1 segment that starts with `header`, header included.
    package static func app1Payload(startingWith header: [UInt8], in jpeg: [UInt8]) -> ArraySlice<UInt8>? {
        segments(of: jpeg).first { $0.marker == 0xE1 && $0.starts(with: header) }?.payload
    }

    /// `jpeg` with the APP1 segments whose payload starts with `header`
    /// replaced by one holding `payload` (removed when nil): in the first
    /// one's place, or, when there was none, after JFIF's APP0 (and after the
    /// EXIF segment, which readers expect first). Every other segment, the scan
    /// and what follows it are kept byte for byte. `what` names it in errors.
    package static func replacingAPP1(startingWith header: [UInt8], with payload: [UInt8]?, in jpeg: [UInt8], what: String) throws -> [UInt8] {
        if let payload, payload.count + 2 > 0xFFFF {
            throw MatteboxError("the \(what) (\(payload.count) bytes) is larger than a JPEG APP1 segment can hold")
        }
        guard jpeg.count > 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { throw MatteboxError("the JPEG has no start-of-image marker") }
        let replacement = payload.map { [0xFF, 0xE1, UInt8(($0.count + 2) >> 8), UInt8(($0.count + 2) & 0xFF)] + $0 } ?? []
        let all = segments(of: jpeg)
        let matches = { (segment: Segment) in segment.marker == 0xE1 && segment.starts(with: header) }
        var output: [UInt8] = [0xFF, 0xD8]
        var placed = false
        if !all.contains(where: matches) {
            // No segment to replace: after the leading APP0s (and EXIF, for anything else).
            let leading = all.prefix { $0.marker == 0xE0 || (header != exifHeader && $0.marker == 0xE1 && $0.starts(with: exifHeader)) }
            for segment in leading { output += segment.bytes }
            output += replacement
            placed = true
            for segment in all.dropFirst(leading.count) { output += segment.bytes }
        } else {
            for segment in all {
                if matches(segment) {
                    if !placed { output += replacement }
                    placed = true
                } else {
                    output += segment.bytes
                }
            }
        }
        let scan = all.last.map(\.bytes.endIndex) ?? 2
        output += jpeg[scan...]
        return output
    }
}
