import Foundation
import MatteboxRuntime

/// The XMP side of an Ultra HDR JPEG (Android's "Ultra HDR Image Format" 1.x, Adobe's hdrgm
/// namespace): the primary says `hdrgm:Version` and lists itself and the gain map in a Google
/// Container directory; the gain map image's own XMP holds its mapping (log2 boost range,
/// gamma, offsets, the display headroom it is meant for). Why it exists: readers that predate
/// ISO 21496-1 (and some that do not) find and apply the gain map through these fields alone.
package enum UltraHDRXMP {
    /// The mapping an Ultra HDR gain map's XMP states; nil when it has no `hdrgm:Version`.
    /// Throws naming the field for a value that is missing, not a number, or a per-channel list
    /// (three-channel maps are not read), and for a base rendition that is HDR.
    package static func metadata(in packet: XMPPacket) throws(MatteboxError) -> GainMapMetadata? {
        guard packet.value(.hdrGainMap("Version")) != nil else { return nil }
        func number(_ field: String, default fallback: Double?) throws(MatteboxError) -> Double {
            guard let text = packet.value(.hdrGainMap(field)), !text.isEmpty else {
                guard let fallback else { throw MatteboxError("the Ultra HDR gain map's XMP has no hdrgm:\(field)") }
                return fallback
            }
            guard let value = Double(text), value.isFinite else {
                throw MatteboxError("the Ultra HDR gain map's hdrgm:\(field) is \"\(text.prefix(40))\", not one number (per-channel values are not read)")
            }
            return value
        }
        if packet.value(.hdrGainMap("BaseRenditionIsHDR"))?.lowercased() == "true" {
            throw MatteboxError("the Ultra HDR gain map maps an HDR base to SDR (hdrgm:BaseRenditionIsHDR), which Mattebox does not read")
        }
        let channel = GainMapMetadata.Channel(
            gainMapMin: try number("GainMapMin", default: 0), gainMapMax: try number("GainMapMax", default: nil),
            gamma: try number("Gamma", default: 1), baseOffset: try number("OffsetSDR", default: 1.0 / 64),
            alternateOffset: try number("OffsetHDR", default: 1.0 / 64))
        guard channel.gamma > 0, channel.gainMapMax >= channel.gainMapMin else {
            throw MatteboxError("the Ultra HDR gain map's XMP states gamma \(channel.gamma) and range \(channel.gainMapMin)...\(channel.gainMapMax)")
        }
        return GainMapMetadata(
            baseHeadroom: try number("HDRCapacityMin", default: 0), alternateHeadroom: try number("HDRCapacityMax", default: nil),
            channels: [channel])
    }

    /// The gain map image's own packet: its mapping in hdrgm fields.
    package static func gainMapPacket(_ metadata: GainMapMetadata) -> Data {
        var packet = XMPPacket(toolkit: "Mattebox")
        let channel = metadata.channels[0]
        let fields: [(String, String)] = [
            ("Version", "1.0"), ("GainMapMin", text(channel.gainMapMin)), ("GainMapMax", text(channel.gainMapMax)),
            ("Gamma", text(channel.gamma)), ("OffsetSDR", text(channel.baseOffset)), ("OffsetHDR", text(channel.alternateOffset)),
            ("HDRCapacityMin", text(metadata.baseHeadroom)), ("HDRCapacityMax", text(metadata.alternateHeadroom)),
            ("BaseRenditionIsHDR", "False"),
        ]
        for (field, value) in fields { packet.set(.hdrGainMap(field), to: value) }
        return packet.data
    }

    /// `packet` (the primary's) saying it has a gain map of `gainMapLength` bytes after it:
    /// `hdrgm:Version` and a Container directory of the primary, the gain map, and a Motion Photo's
    /// movie when the packet's directory lists one (the movie stays last: readers find it from the
    /// file's end, as Pixel phones write both). An Ultra HDR input's own gain map item is replaced.
    /// Throws when the directory lists anything else, which the gain map cannot join.
    package static func describingPrimary(_ packet: XMPPacket, gainMapLength: Int) throws(MatteboxError) -> XMPPacket {
        guard canDescribe(packet) else {
            throw MatteboxError("the photo's XMP already has a Container directory of other items than a movie")
        }
        let existing = packet.directory
        let movies = existing.filter { $0["Semantic"] == motionPhotoSemantic }
        var primary = existing.first { $0["Semantic"] == "Primary" } ?? [:]
        (primary["Semantic"], primary["Mime"]) = ("Primary", "image/jpeg")
        var packet = packet
        packet.removeDirectory()
        packet.set(.hdrGainMap("Version"), to: "1.0")
        let gainMap = ["Semantic": "GainMap", "Mime": "image/jpeg", "Length": String(gainMapLength)]
        packet.setDirectory([primary, gainMap] + movies, order: movies.isEmpty ? ["Semantic", "Mime", "Length"] : motionPhotoOrder)
        return packet
    }

    /// `xmp` no longer claiming an Ultra HDR gain map (`hdrgm:Version` and its directory item; the
    /// directory itself when only the primary is left), for a file that does not carry one after its
    /// primary; unchanged when it claims none or cannot be read. A Motion Photo's movie item stays.
    package static func withoutDescription(_ xmp: Data) -> Data {
        guard var packet = try? XMPPacket(xmp), packet.value(.hdrGainMap("Version")) != nil else { return xmp }
        packet.remove(.hdrGainMap("Version"))
        let items = packet.directory
        if !items.isEmpty, canDescribe(packet) {
            packet.removeDirectory()
            let kept = items.filter { $0["Semantic"] != "GainMap" }
            if kept.contains(where: { $0["Semantic"] == motionPhotoSemantic }) { packet.setDirectory(kept, order: motionPhotoOrder) }
        }
        return packet.data
    }

    /// Whether `packet` can say it has a gain map: no Container directory, or one of a primary, a
    /// gain map and a Motion Photo's movie.
    package static func canDescribe(_ packet: XMPPacket) -> Bool {
        packet.directory.allSatisfy { ["Primary", "GainMap", motionPhotoSemantic].contains($0["Semantic"] ?? "") }
    }

    private static let motionPhotoSemantic = "MotionPhoto"
    /// The item properties in the order Motion Photo writers (and `MotionPhotoXMP`) give them.
    private static let motionPhotoOrder = ["Mime", "Semantic", "Length", "Padding"]

    /// A number as XMP writers print it: up to six decimals, no trailing zeros.
    private static func text(_ value: Double) -> String {
        var text = String(format: "%.6f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
