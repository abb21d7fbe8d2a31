import MatteboxISOBMFF
import MatteboxRuntime

/// What a fragmented movie's fragments say of one track: how many samples
/// and where its media time ends. A recording is written with an empty
/// `moov` (its duration 0) and its frames in `moof`/`mdat` pairs, so its
/// length and frame count are only found here: the `tfdt` start of each
/// fragment plus its `trun` sample durations (or the `tfhd`/`trex` default).
struct MovieFragments {
    var samples = 0
    /// The media time (in the track's timescale) at which its last sample ends.
    var end: UInt64 = 0

    init(track trackID: UInt32, top: [Box], moov: [Box], bytes: [UInt8]) throws {
        var trackDefault: UInt32 = 0
        if let mvex = moov.first("mvex") {
            for trex in try Box.children(of: bytes, in: mvex.payload, parent: "mvex") where trex.type == "trex" {
                var reader = try trex.fullBoxReader(bytes).reader
                guard try reader.u32("trex track ID") == trackID else { continue }
                _ = try reader.u32("trex sample description index")
                trackDefault = try reader.u32("trex default sample duration")
            }
        }
        for moof in top where moof.type == "moof" {
            for traf in try Box.children(of: bytes, in: moof.payload, parent: "moof") where traf.type == "traf" {
                let parts = try Box.children(of: bytes, in: traf.payload, parent: "traf")
                guard let tfhd = parts.first("tfhd") else { continue }
                var (header, _, flags) = try tfhd.fullBoxReader(bytes)
                guard try header.u32("tfhd track ID") == trackID else { continue }
                if flags & 0x01 != 0 { try header.skip(8, "tfhd base data offset") }
                if flags & 0x02 != 0 { try header.skip(4, "tfhd sample description index") }
                let defaultDuration = flags & 0x08 != 0 ? try header.u32("tfhd default sample duration") : trackDefault
                var time: UInt64 = 0
                if let tfdt = parts.first("tfdt") {
                    var (reader, version, _) = try tfdt.fullBoxReader(bytes)
                    time = version == 1 ? try reader.u64("tfdt decode time") : UInt64(try reader.u32("tfdt decode time"))
                }
                for trun in parts where trun.type == "trun" {
                    var (reader, _, runFlags) = try trun.fullBoxReader(bytes)
                    let count = Int(try reader.u32("trun sample count"))
                    if runFlags & 0x01 != 0 { try reader.skip(4, "trun data offset") }
                    if runFlags & 0x04 != 0 { try reader.skip(4, "trun first sample flags") }
                    let fields = [0x100, 0x200, 0x400, 0x800].filter { runFlags & $0 != 0 }.count
                    guard count <= reader.remaining / max(1, fields * 4) || fields == 0, count <= 10_000_000 else {
                        throw MatteboxError("a 'trun' claims \(count) samples in \(reader.remaining) bytes")
                    }
                    for _ in 0..<count {
                        let duration = UInt64(runFlags & 0x100 != 0 ? try reader.u32("trun sample duration") : defaultDuration)
                        let (next, overflows) = time.addingReportingOverflow(duration)
                        guard !overflows else { throw MatteboxError("a fragment's decode time passes 2^64 (its 'tfdt' is damaged)") }
                        time = next
                        try reader.skip((fields - (runFlags & 0x100 != 0 ? 1 : 0)) * 4, "trun sample fields")
                    }
                    samples += count
                }
                end = max(end, time)
            }
        }
    }
}
