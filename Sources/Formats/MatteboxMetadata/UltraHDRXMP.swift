import Foundation
import MatteboxRuntime

/// The XMP side of an Ultra HDR JPEG (Android's "Ultra HDR Image Format" 1.x, Adobe's hdrgm
/// namespace): the primary says `hdrgm:Version` and lists itself and the gain map in a Google
/// Container directory; the gain map image's own XMP holds its mapping (log2 boost range,
/// gamma, offsets, the display headroom it is meant for). Why it exists: readers that predate
/// ISO 21496-1 (and some that do not) find and apply the gain map through these fields alone.
package enum UltraHDRXMP {
    /// A gain map's mapping as its hdrgm XMP states it, said in ISO 21496-1's form.
    package struct Mapping: Sendable, Equatable {
        package var metadata: GainMapMetadata
        /// The map's samples must be turned (`GainMapForms.turnedSamples`) before the metadata
        /// applies: hdrgm states log2 of HDR over SDR whichever image is the base, ISO 21496-1
        /// log2 of the alternate over the base, and both keep the map's minimum below its maximum.
        /// True for an HDR base (`hdrgm:BaseRenditionIsHDR`).
        package var samplesTurned: Bool

        package init(metadata: GainMapMetadata, samplesTurned: Bool) { (self.metadata, self.samplesTurned) = (metadata, samplesTurned) }
    }

    /// The mapping an Ultra HDR gain map's XMP states; nil when it has no `hdrgm:Version`. A
    /// channel field may be one number or an `rdf:Seq` of three, one per colour channel (Adobe's
    /// gain map specification allows both), which makes the mapping per channel. An HDR base
    /// (`hdrgm:BaseRenditionIsHDR`) is said as ISO 21496-1 says it: the base's headroom the
    /// larger, the offsets of HDR and SDR as the base's and the alternate's, the log2 range
    /// negated (the map then brings the HDR base down to SDR) with the samples turned to match.
    /// Throws naming the field for a value that is missing or not a number, or a list not of
    /// one or three.
    package static func mapping(in packet: XMPPacket) throws(MatteboxError) -> Mapping? {
        guard packet.value(.hdrGainMap("Version")) != nil else { return nil }
        func parsed(_ field: String, _ text: String) throws(MatteboxError) -> Double {
            guard let value = Double(text), value.isFinite else {
                throw MatteboxError("the Ultra HDR gain map's hdrgm:\(field) is \"\(text.prefix(40))\", not a number")
            }
            return value
        }
        func number(_ field: String, default fallback: Double?) throws(MatteboxError) -> Double {
            try numbers(field, default: fallback, allowing: [1])[0]
        }
        /// One value, or `allowing` as many (one per colour channel).
        func numbers(_ field: String, default fallback: Double?, allowing counts: Set<Int> = [1, 3]) throws(MatteboxError) -> [Double] {
            guard let texts = packet.values(.hdrGainMap(field)), !texts.isEmpty, texts != [""] else {
                guard let fallback else { throw MatteboxError("the Ultra HDR gain map's XMP has no hdrgm:\(field)") }
                return [fallback]
            }
            guard counts.contains(texts.count) else {
                throw MatteboxError("the Ultra HDR gain map's hdrgm:\(field) lists \(texts.count) values, not \(counts.sorted().map(String.init).joined(separator: " or "))")
            }
            var values: [Double] = []
            for text in texts { values.append(try parsed(field, text)) }
            return values
        }
        let baseIsHDR = packet.value(.hdrGainMap("BaseRenditionIsHDR"))?.lowercased() == "true"
        let fields = [
            try numbers("GainMapMin", default: 0), try numbers("GainMapMax", default: nil), try numbers("Gamma", default: 1),
            try numbers("OffsetSDR", default: 1.0 / 64), try numbers("OffsetHDR", default: 1.0 / 64),
        ]
        let isMultichannel = fields.contains { Set($0).count > 1 }
        let channels = (0..<(isMultichannel ? 3 : 1)).map { c in
            let value = { (field: [Double]) in field[field.count == 3 ? c : 0] }
            return GainMapMetadata.Channel(
                gainMapMin: value(fields[0]), gainMapMax: value(fields[1]), gamma: value(fields[2]),
                baseOffset: value(fields[3]), alternateOffset: value(fields[4]))
        }
        for channel in channels where !(channel.gamma > 0 && channel.gainMapMax >= channel.gainMapMin) {
            throw MatteboxError("the Ultra HDR gain map's XMP states gamma \(channel.gamma) and range \(channel.gainMapMin)...\(channel.gainMapMax)")
        }
        let (sdrHeadroom, hdrHeadroom) = (try number("HDRCapacityMin", default: 0), try number("HDRCapacityMax", default: nil))
        guard baseIsHDR else {
            let metadata = GainMapMetadata(isMultichannel: isMultichannel, baseHeadroom: sdrHeadroom, alternateHeadroom: hdrHeadroom, channels: channels)
            return Mapping(metadata: metadata, samplesTurned: false)
        }
        let fromHDR = channels.map { channel in
            GainMapMetadata.Channel(
                gainMapMin: -channel.gainMapMax, gainMapMax: -channel.gainMapMin, gamma: channel.gamma,
                baseOffset: channel.alternateOffset, alternateOffset: channel.baseOffset)
        }
        let metadata = GainMapMetadata(isMultichannel: isMultichannel, baseHeadroom: hdrHeadroom, alternateHeadroom: sdrHeadroom, channels: fromHDR)
        return Mapping(metadata: metadata, samplesTurned: true)
    }

    /// Whether `gainMapPacket` can state `metadata` for the map's own samples: not for an HDR base
    /// (hdrgm would need the samples turned, and the map image is shared with ISO 21496-1's APP2).
    package static func canState(_ metadata: GainMapMetadata) -> Bool { metadata.baseHeadroom <= metadata.alternateHeadroom }

    /// The gain map image's own packet: its mapping in hdrgm fields, a field per channel as an
    /// `rdf:Seq` of three for a mapping per channel.
    package static func gainMapPacket(_ metadata: GainMapMetadata) -> Data {
        var packet = XMPPacket(toolkit: "Mattebox")
        packet.set(.hdrGainMap("Version"), to: "1.0")
        let perChannel: [(String, KeyPath<GainMapMetadata.Channel, Double>)] = [
            ("GainMapMin", \.gainMapMin), ("GainMapMax", \.gainMapMax), ("Gamma", \.gamma),
            ("OffsetSDR", \.baseOffset), ("OffsetHDR", \.alternateOffset),
        ]
        for (field, value) in perChannel {
            let values = metadata.channels.prefix(metadata.isMultichannel ? 3 : 1).map { text($0[keyPath: value]) }
            if values.count == 1 { packet.set(.hdrGainMap(field), to: values[0]) } else { packet.set(.hdrGainMap(field), toSequence: values) }
        }
        let fields: [(String, String)] = [
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
