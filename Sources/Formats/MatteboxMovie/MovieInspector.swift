import Foundation
import MatteboxISOBMFF
import MatteboxRuntime

/// What a QuickTime/MP4 movie says about itself, read from its boxes (nothing
/// is decoded): duration, the video's coding and frame count, and the Live
/// Photo pairing — the `mdta` content identifier in `moov/meta` and the
/// still's time from a `mebx` track keyed `com.apple.quicktime.still-image-time`.
package struct MovieSummary: Codable, Sendable, Equatable {
    package var duration: Double
    /// The video sample entry's type (avc1, hvc1, ...).
    package var videoCoding: String?
    package var videoFrames: Int?
    package var contentIdentifier: String?
    /// Seconds from the start to the still, when the movie marks it.
    package var stillImageTime: Double?
    /// A fragmented movie (`mvex`, as recordings are written): its frames and length come from its fragments.
    package var fragmented: Bool
    /// Where a fragmented movie's file ends inside a box (a recording whose writer was
    /// killed): its frames and length are those of the whole fragments before it.
    package var cutOffAt: Int?
}

/// Reads a `MovieSummary` from a movie's boxes, for `inspect` and the Live Photo pairing.
package enum MovieInspector {
    /// Whether `bytes` start like a QuickTime or MP4 movie (an `ftyp` with a movie brand;
    /// HEIF, AVIF and raw formats such as CR3 share the box structure but not the brands).
    package static func looksLikeMovie(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.count >= 12 else { return false }
        let start = bytes.startIndex
        guard BoxType.string(bytes[(start + 4)..<(start + 8)]) == "ftyp" else { return false }
        return movieBrands.contains(BoxType.string(bytes[(start + 8)..<(start + 12)]))
    }

    static let movieBrands: Set<String> = [
        "qt  ", "isom", "iso2", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "M4V ", "M4VP", "3gp4", "3gp5", "3gp6", "dash",
    ]

    package static func inspect(_ bytes: [UInt8], name: String) throws -> MovieSummary {
        // The box layer speaks of HEIF; a movie's errors name the movie.
        do { return try summarise(bytes, name: name) } catch let error as HEIFError {
            switch error {
            case .malformed(let text): throw MatteboxError("\(name): malformed movie: \(text)")
            case .unsupported(let text): throw MatteboxError("\(name): unsupported movie: \(text)")
            case .codec(let text): throw MatteboxError("\(name): \(text)")
            }
        }
    }

    private static func summarise(_ bytes: [UInt8], name: String) throws -> MovieSummary {
        let top = try Box.children(of: bytes, in: 0..<bytes.count, parent: name)
        let moov = try top.required("moov", in: name)
        let boxes = try Box.children(of: bytes, in: moov.payload, parent: "moov")
        let mvhd = try boxes.required("mvhd", in: "moov")
        let (timescale, duration) = try timing(mvhd, bytes)
        var summary = MovieSummary(
            duration: timescale > 0 ? Double(duration) / Double(timescale) : 0, fragmented: boxes.first("mvex") != nil)
        // QuickTime puts the keyed metadata in moov/meta; FFmpeg in moov/udta/meta.
        let udta = try boxes.first("udta").map { try Box.children(of: bytes, in: $0.payload, parent: "udta") } ?? []
        if let meta = boxes.first("meta") ?? udta.first("meta") {
            summary.contentIdentifier = try metadata(meta, bytes)[contentIdentifierKey]
        }
        for trak in boxes where trak.type == "trak" {
            let track = try Track(trak, bytes)
            switch track.handler {
            case "vide":
                summary.videoCoding = track.sampleEntry
                summary.videoFrames = track.sampleSizes.count
                if summary.fragmented {
                    // The frames are in the fragments; so is the length the empty `moov` does not give.
                    let fragments = try MovieFragments(track: track.trackID, top: top, moov: boxes, bytes: bytes)
                    summary.videoFrames = track.sampleSizes.count + fragments.samples
                    if track.timescale > 0 {
                        summary.duration = max(summary.duration, Double(fragments.end) / Double(track.timescale))
                    }
                }
            case "meta" where track.keys.contains(StillImageTimeTrack.key):
                // The first sample holding data marks the still; its time is where it starts.
                if let index = track.sampleSizes.firstIndex(where: { $0 > 0 }), track.timescale > 0 {
                    summary.stillImageTime = Double(track.sampleStarts(upTo: index)) / Double(track.timescale)
                }
            default: break
            }
        }
        return summary
    }

    /// The QuickTime `mdta` key of a Live Photo's content identifier, which pairs a movie with its still.
    package static let contentIdentifierKey = "com.apple.quicktime.content.identifier"

    private static func timing(_ header: Box, _ bytes: [UInt8]) throws -> (UInt32, UInt64) {
        var (reader, version, _) = try header.fullBoxReader(bytes)
        try reader.skip(version == 1 ? 16 : 8, "'\(header.type)' times")
        let timescale = try reader.u32("timescale")
        let duration = version == 1 ? try reader.u64("duration") : UInt64(try reader.u32("duration"))
        return (timescale, duration)
    }

    /// `mdta` keys and their UTF-8 values from a `meta` box (FFmpeg writes it
    /// as a full box, QuickTime as a plain one; both are read).
    static func metadata(_ meta: Box, _ bytes: [UInt8]) throws -> [String: String] {
        var range = meta.payload
        if range.count >= 4, bytes[range.lowerBound..<range.lowerBound + 4].allSatisfy({ $0 == 0 }) {
            range = range.lowerBound + 4..<range.upperBound
        }
        let children = try Box.children(of: bytes, in: range, parent: "meta")
        guard let keysBox = children.first("keys"), let list = children.first("ilst") else { return [:] }
        var reader = try keysBox.fullBoxReader(bytes).reader
        let count = try reader.u32("key count")
        var keys: [String] = []
        for _ in 0..<min(count, 1024) {
            let size = Int(try reader.u32("key size"))
            guard size >= 8 else { throw MatteboxError("a 'keys' entry of \(size) bytes") }
            _ = try reader.fourCC("key namespace")
            keys.append(String(decoding: try reader.take(size - 8, "key"), as: UTF8.self))
        }
        var values: [String: String] = [:]
        for item in try Box.children(of: bytes, in: list.payload, parent: "ilst") {
            // An item's box type is its key's index; a 'data' payload starts with its type (1: UTF-8).
            var header = ByteReader(bytes, range: item.range)
            _ = try header.u32("ilst item size")
            let index = Int(try header.u32("ilst item key index"))
            guard index >= 1, index <= keys.count,
                let data = try Box.children(of: bytes, in: item.payload, parent: "ilst item").first("data"),
                data.payload.count >= 8
            else { continue }
            var type = ByteReader(bytes, range: data.payload)
            guard try type.u32("data type") == 1 else { continue }
            values[keys[index - 1]] = String(decoding: bytes[(data.payload.lowerBound + 8)..<data.payload.upperBound], as: UTF8.self)
        }
        return values
    }

    /// One `trak`: its handler, first sample entry, timescale, sample table and (for `mebx`) its keys.
    private struct Track {
        var handler = ""
        var trackID: UInt32 = 0
        var sampleEntry: String?
        var timescale: UInt32 = 0
        var sampleSizes: [UInt32] = []
        var durations: [(count: UInt32, delta: UInt32)] = []
        var keys: [String] = []

        init(_ trak: Box, _ bytes: [UInt8]) throws {
            let parts = try Box.children(of: bytes, in: trak.payload, parent: "trak")
            if let tkhd = parts.first("tkhd") {
                var (reader, version, _) = try tkhd.fullBoxReader(bytes)
                try reader.skip(version == 1 ? 16 : 8, "tkhd times")
                trackID = try reader.u32("tkhd track ID")
            }
            guard let mdia = parts.first("mdia") else { return }
            let media = try Box.children(of: bytes, in: mdia.payload, parent: "mdia")
            if let mdhd = media.first("mdhd") { timescale = try MovieInspector.timing(mdhd, bytes).0 }
            if let hdlr = media.first("hdlr") {
                var reader = try hdlr.fullBoxReader(bytes).reader
                _ = try reader.u32("pre-defined")
                handler = try reader.fourCC("handler type")
            }
            guard let minf = media.first("minf"),
                let stbl = try Box.children(of: bytes, in: minf.payload, parent: "minf").first("stbl")
            else { return }
            let table = try Box.children(of: bytes, in: stbl.payload, parent: "stbl")
            if let stsd = table.first("stsd"), stsd.payload.count >= 8 {
                let entries = try Box.children(of: bytes, in: stsd.payload.lowerBound + 8..<stsd.payload.upperBound, parent: "stsd")
                if let entry = entries.first {
                    sampleEntry = entry.type
                    if entry.type == "mebx", entry.payload.count > 8 {
                        let inner = try Box.children(of: bytes, in: entry.payload.lowerBound + 8..<entry.payload.upperBound, parent: "mebx")
                        if let keyTable = inner.first("keys") {
                            for key in try Box.children(of: bytes, in: keyTable.payload, parent: "keys") {
                                for part in try Box.children(of: bytes, in: key.payload, parent: "key")
                                where part.type == "keyd" && part.payload.count >= 4 {
                                    keys.append(String(decoding: bytes[(part.payload.lowerBound + 4)..<part.payload.upperBound], as: UTF8.self))
                                }
                            }
                        }
                    }
                }
            }
            if let stsz = table.first("stsz") {
                var reader = try stsz.fullBoxReader(bytes).reader
                let fixed = try reader.u32("sample size")
                let count = try reader.u32("sample count")
                guard count <= 10_000_000 else { throw MatteboxError("'stsz' says \(count) samples") }
                sampleSizes = fixed != 0 ? Array(repeating: fixed, count: Int(count)) : try (0..<count).map { _ in try reader.u32("size") }
            }
            if let stts = table.first("stts") {
                var reader = try stts.fullBoxReader(bytes).reader
                let count = try reader.u32("entry count")
                durations = try (0..<min(count, 1_000_000)).map { _ in (try reader.u32("count"), try reader.u32("delta")) }
            }
        }

        /// Media time at which sample `index` starts.
        func sampleStarts(upTo index: Int) -> UInt64 {
            var remaining = index
            var time: UInt64 = 0
            for run in durations where remaining > 0 {
                let taken = min(remaining, Int(run.count))
                time += UInt64(taken) * UInt64(run.delta)
                remaining -= taken
            }
            return time
        }
    }
}
