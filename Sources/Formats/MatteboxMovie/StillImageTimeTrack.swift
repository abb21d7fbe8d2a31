import Foundation
import MatteboxISOBMFF
import MatteboxRuntime

/// Marks the still's moment in a Live Photo movie the way iPhones do: a timed
/// metadata track (handler `meta`, sample entry `mebx`) whose key table names
/// `com.apple.quicktime.still-image-time` (key space `mdta`, data type 65,
/// int8), with one sample at the still's time holding -1. FFmpeg's muxer does
/// not write `mebx` tracks, so this adds one to a finished, unfragmented
/// QuickTime file whose `moov` comes after its `mdat` (FFmpeg's default):
/// the new sample goes in a small `mdat` before the rewritten `moov`, and no
/// existing chunk offset moves. The keyed metadata moves where QuickTime keeps
/// it (`quickTimeMetadata`).
///
/// Layout sources: Apple's QuickTime File Format, "Timed Metadata Media" (the
/// `keys` table of a `mebx` sample entry, `keyd` and `dtyp`); ExifTool's
/// QuickTime tables, which read this tag from iPhone Live Photos as
/// `StillImageTime` (always -1, the time being the sample's).
package enum StillImageTimeTrack {
    package static let key = "com.apple.quicktime.still-image-time"

    /// Returns the movie with the track added, the still at `seconds` from the movie's start.
    package static func adding(to movie: [UInt8], stillAt seconds: Double, path: String) throws -> [UInt8] {
        let top = try Box.children(of: movie, in: 0..<movie.count, parent: path)
        guard let moovIndex = top.firstIndex(where: { $0.type == "moov" }) else {
            throw MatteboxError("\(path): no 'moov' box: not a finished QuickTime movie")
        }
        let moov = top[moovIndex]
        guard moovIndex == top.count - 1, top[..<moovIndex].contains(where: { $0.type == "mdat" }) else {
            throw MatteboxError("\(path): the still-image time needs 'moov' last, after 'mdat'")
        }
        let children = try Box.children(of: movie, in: moov.payload, parent: "moov")
        let mvhd = try children.required("mvhd", in: "moov")
        var (reader, version, _) = try mvhd.fullBoxReader(movie)
        try reader.skip(version == 1 ? 16 : 8, "mvhd times")
        let movieTimescale = try reader.u32("mvhd timescale")
        let movieDuration = version == 1 ? try reader.u64("mvhd duration") : UInt64(try reader.u32("mvhd duration"))
        guard movieTimescale > 0 else { throw MatteboxError("\(path): mvhd timescale is 0") }
        var nextTrack = ByteReader(movie, range: (mvhd.range.upperBound - 4)..<mvhd.range.upperBound)
        let trackID = try nextTrack.u32("mvhd next track ID")
        guard trackID < UInt32.max else { throw MatteboxError("\(path): mvhd has no track ID left for the still-image time") }

        let mediaTimescale: UInt32 = 90_000
        let mediaDuration = UInt64((Double(movieDuration) / Double(movieTimescale) * Double(mediaTimescale)).rounded())
        let stillTime = min(UInt64(max(0, seconds) * Double(mediaTimescale)), max(mediaDuration, 1) - 1)
        let sample: [UInt8] = [0, 0, 0, 9, 0, 0, 0, 1, 0xFF]  // item of local key 1, int8 -1

        var out = Array(movie[0..<moov.range.lowerBound])
        let sampleOffset = out.count + 8
        out += ByteWriter.box("mdat") { $0.append(sample) }
        var moovBytes = ByteWriter()
        let metadata = try quickTimeMetadata(children, movie)
        moovBytes.box("moov") { body in
            for child in children {
                var bytes = Array(movie[child.range])
                if child.type == "mvhd" {
                    var next = ByteWriter()
                    next.u32(trackID + 1)
                    bytes.replaceSubrange(bytes.count - 4..<bytes.count, with: next.bytes)
                }
                if child.type == "udta", let metadata { bytes = metadata.udta }
                body.append(bytes)
            }
            if let metadata { body.append(metadata.meta) }
            body.append(
                track(
                    id: trackID, movieDuration: movieDuration, mediaTimescale: mediaTimescale, mediaDuration: mediaDuration,
                    stillTime: stillTime, sampleSize: UInt32(sample.count), sampleOffset: UInt32(sampleOffset)))
        }
        guard sampleOffset < Int(UInt32.max) else { throw MatteboxError("\(path): movie too large for 32-bit chunk offsets") }
        return out + moovBytes.bytes
    }

    /// The `trak`: a disabled metadata track of two samples, an empty one up to
    /// the still (so the marked sample's time is its start, without relying on
    /// edit lists) and the marker, which lasts to the end.
    private static func track(
        id: UInt32, movieDuration: UInt64, mediaTimescale: UInt32, mediaDuration: UInt64, stillTime: UInt64,
        sampleSize: UInt32, sampleOffset: UInt32
    ) -> [UInt8] {
        let durations = stillTime > 0 ? [stillTime, max(1, mediaDuration - stillTime)] : [max(1, mediaDuration)]
        let sizes = stillTime > 0 ? [0, sampleSize] : [sampleSize]
        return ByteWriter.box("trak") { trak in
            trak.fullBox("tkhd", flags: 0) { tkhd in
                tkhd.u32(0); tkhd.u32(0)  // creation, modification
                tkhd.u32(id); tkhd.u32(0)
                tkhd.u32(UInt32(clamping: movieDuration))
                tkhd.append([UInt8](repeating: 0, count: 8))
                tkhd.u16(0); tkhd.u16(0); tkhd.u16(0); tkhd.u16(0)  // layer, group, volume, reserved
                for value: UInt32 in [0x1_0000, 0, 0, 0, 0x1_0000, 0, 0, 0, 0x4000_0000] { tkhd.u32(value) }
                tkhd.u32(0); tkhd.u32(0)  // no picture size
            }
            trak.box("mdia") { mdia in
                mdia.fullBox("mdhd") { mdhd in
                    mdhd.u32(0); mdhd.u32(0)
                    mdhd.u32(mediaTimescale)
                    mdhd.u32(UInt32(clamping: mediaDuration))
                    mdhd.u16(0x55C4)  // 'und'
                    mdhd.u16(0)
                }
                mdia.fullBox("hdlr") { hdlr in
                    hdlr.fourCC("mhlr")
                    hdlr.fourCC("meta")
                    hdlr.append([UInt8](repeating: 0, count: 12))
                    let name = Array("Core Media Metadata".utf8)
                    hdlr.u8(UInt8(name.count))
                    hdlr.append(name)
                }
                mdia.box("minf") { minf in
                    minf.fullBox("nmhd") { _ in }
                    minf.box("dinf") { dinf in
                        dinf.fullBox("dref") { dref in
                            dref.u32(1)
                            dref.fullBox("url ", flags: 1) { _ in }
                        }
                    }
                    minf.box("stbl") { stbl in
                        stbl.fullBox("stsd") { stsd in
                            stsd.u32(1)
                            stsd.box("mebx") { entry in
                                entry.append([UInt8](repeating: 0, count: 6))
                                entry.u16(1)  // data reference index
                                entry.box("keys") { keys in
                                    // An entry's box type is its local key id: 1, as the sample says.
                                    keys.box("\u{0}\u{0}\u{0}\u{1}") { entryBody in
                                        entryBody.box("keyd") { keyd in
                                            keyd.fourCC("mdta")
                                            keyd.append(Array(key.utf8))
                                        }
                                        entryBody.box("dtyp") { dtyp in
                                            dtyp.u32(0)  // well-known types
                                            dtyp.u32(65)  // signed 8-bit integer
                                        }
                                    }
                                }
                            }
                        }
                        stbl.fullBox("stts") { stts in
                            stts.u32(UInt32(durations.count))
                            for duration in durations {
                                stts.u32(1)
                                stts.u32(UInt32(clamping: duration))
                            }
                        }
                        stbl.fullBox("stsc") { stsc in
                            stsc.u32(1)
                            stsc.u32(1); stsc.u32(UInt32(sizes.count)); stsc.u32(1)
                        }
                        stbl.fullBox("stsz") { stsz in
                            stsz.u32(0)
                            stsz.u32(UInt32(sizes.count))
                            for size in sizes { stsz.u32(size) }
                        }
                        stbl.fullBox("stco") { stco in
                            stco.u32(1)
                            stco.u32(sampleOffset)
                        }
                    }
                }
            }
        }
    }

    /// FFmpeg writes the `mdta` keys as moov/udta/meta, a full box as MP4 has it;
    /// QuickTime (and iPhones' Live Photo movies) keep them in moov/meta, a plain
    /// atom of hdlr, keys and ilst. Returns that `meta` and the `udta` without it.
    private static func quickTimeMetadata(_ moov: [Box], _ movie: [UInt8]) throws -> (meta: [UInt8], udta: [UInt8])? {
        guard moov.first("meta") == nil, let udta = moov.first("udta") else { return nil }
        let inside = try Box.children(of: movie, in: udta.payload, parent: "udta")
        guard let meta = inside.first("meta"), meta.payload.count > 4 else { return nil }
        var payload = meta.payload
        if movie[payload.lowerBound..<payload.lowerBound + 4].allSatisfy({ $0 == 0 }) { payload = payload.lowerBound + 4..<payload.upperBound }
        let quickTimeMeta = ByteWriter.box("meta") { $0.append(movie[payload]) }
        let rest = inside.filter { $0.type != "meta" }
        let udtaBytes = rest.isEmpty ? [] : ByteWriter.box("udta") { body in for box in rest { body.append(movie[box.range]) } }
        return (quickTimeMeta, udtaBytes)
    }
}
