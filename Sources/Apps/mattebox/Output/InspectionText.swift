import Foundation
import MatteboxCore
import MatteboxHEIF

/// The human-readable form of a HEIF summary, one fact a line.
enum InspectionText {
    /// The EXIF line of any photo's listing (HEIF or not).
    static func exifLine(_ exif: HEIFSummary.Exif?) -> String {
        guard let exif else { return "EXIF: none" }
        let camera = [exif.make, exif.model].compactMap { $0 }.joined(separator: " ")
        var text = "EXIF: \(exif.bytes) bytes"
        if !camera.isEmpty { text += ", \(camera)" }
        if let date = exif.dateTimeOriginal { text += ", taken \(date)" }
        if let orientation = exif.orientation { text += ", Orientation tag \(orientation)" }
        return text + (exif.hasLocation ? ", has GPS location" : ", no GPS location")
    }

    /// The XMP line of any photo's listing.
    static func xmpLine(bytes: Int?, namespaces: [String]) -> String {
        guard let bytes else { return "XMP: none" }
        return "XMP: \(bytes) bytes" + (namespaces.isEmpty ? "" : " (\(namespaces.joined(separator: ", ")))")
    }

    static func render(_ summary: HEIFSummary, libheif: String) -> String {
        var lines = ["\(summary.file) (\(summary.bytes) bytes; brands \(summary.brands.joined(separator: ", ")))"]
        lines.append("primary: \(describe(summary.primary))")
        lines.append(
            "orientation: \(summary.orientation)"
                + (summary.transforms.isEmpty ? " (no transforms)" : " (\(summary.transforms.joined(separator: ", ")))"))
        if let icc = summary.iccProfileBytes { lines.append("colour: ICC profile, \(icc) bytes") }
        lines.append("thumbnail: " + (summary.thumbnail.map(describe) ?? "none"))
        lines.append(exifLine(summary.exif))
        lines.append(xmpLine(bytes: summary.xmpBytes, namespaces: summary.xmpNamespaces))
        lines.append("auxiliary images: \(summary.auxiliary.count)")
        for aux in summary.auxiliary {
            lines.append("  \(aux.role): \(describe(aux.image))")
            lines.append("    type \(aux.type)")
            if let depth = aux.depth { lines.append(representationLine(depth)) }
            if aux.type == "urn:com:apple:photo:2020:aux:hdrgainmap", let hdr = summary.exif?.appleHDRHeadroom {
                lines.append(headroomLine(hdr))
            }
            if let xmp = aux.xmpBytes {
                lines.append("    XMP: \(xmp) bytes" + (aux.xmpAuxiliaryImageType.map { ", AuxiliaryImageType \($0)" } ?? ""))
            }
        }
        if !summary.otherImages.isEmpty {
            lines.append("other top-level images: \(summary.otherImages.count)")
            for image in summary.otherImages { lines.append("  \(describe(image))") }
        }
        if !summary.entityGroups.isEmpty { lines.append("entity groups: \(summary.entityGroups.joined(separator: "; "))") }
        if let toneMap = summary.toneMap { lines += toneMapLines(toneMap) }
        lines.append("libheif \(HEIFInspector.libheifVersion): \(libheif)")
        return lines.joined(separator: "\n")
    }

    /// An iPhone gain map's headroom, indented under its image.
    static func headroomLine(_ hdr: AppleHDRHeadroom) -> String {
        func short(_ value: Double) -> String { String(format: "%.3g", value) }
        return "    headroom: \(short(hdr.headroom))x SDR white (\(short(hdr.stops)) stops; Apple maker note HDRHeadroom "
            + "\(short(hdr.makerNote33)), HDRGain \(hdr.makerNote48.map(short) ?? "absent, taken as 0"))"
    }

    /// An ISO 21496-1 tone map item: what it joins and how its gain map brightens the primary.
    static func toneMapLines(_ toneMap: HEIFSummary.ToneMap) -> [String] {
        func short(_ value: Double) -> String { String(format: "%.3g", value) }
        let head = "tone map: ISO 21496-1, item \(toneMap.item) tmap of items \(toneMap.inputs.map(String.init).joined(separator: ", "))"
        guard let metadata = toneMap.metadata else { return [head, "    unreadable: \(toneMap.problem ?? "no metadata")"] }
        var lines = [
            head,
            "    headroom: \(short(metadata.alternateHeadroomFactor))x SDR white (\(short(metadata.alternateHeadroom)) stops; base "
                + "\(short(metadata.baseHeadroom)) stops), \(metadata.isMultichannel ? "per channel" : "one channel for all three")"
                + (metadata.useBaseColourSpace ? ", in the base image's colours" : ", in the alternate image's colours"),
        ]
        for (index, channel) in metadata.channels.enumerated() {
            lines.append(
                "    \(metadata.channels.count > 1 ? "channel \(index + 1): " : "")gain map log2 \(short(channel.gainMapMin))...\(short(channel.gainMapMax)), "
                    + "gamma \(short(channel.gamma)), offsets \(short(channel.baseOffset)) (base) and \(short(channel.alternateOffset)) (alternate)")
        }
        return lines
    }

    /// How a depth or disparity map's stored values map to distance, indented under its image.
    static func representationLine(_ depth: DepthRepresentation) -> String {
        var text = "    representation: \(depth.kind)"
        if let low = depth.disparityMinimum { text += ", d-min \(format(low))" }
        if let high = depth.disparityMaximum { text += ", d-max \(format(high))" }
        if let near = depth.nearestDepth { text += ", z-near \(format(near))" }
        if let far = depth.farthestDepth { text += ", z-far \(format(far))" }
        return text
    }

    private static func describe(_ image: HEIFSummary.Image) -> String {
        var text = "\(image.width)x\(image.height)"
        if image.width != image.storedWidth || image.height != image.storedHeight {
            text += " (stored \(image.storedWidth)x\(image.storedHeight))"
        }
        if let bits = image.bitDepth, let channels = image.channels {
            text += ", \(bits)-bit \(channels == 1 ? "grey" : "colour")"
        }
        text += ", item \(image.item) \(image.coding)"
        if let tiles = image.tiles { text += " of \(tiles) tiles" }
        return text
    }

    private static func format(_ value: Double) -> String { String(format: "%.6f", value) }
}
