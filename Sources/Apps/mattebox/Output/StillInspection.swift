import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxImageIO
import MatteboxPairedMedia

/// What `inspect` says of a still that is not HEIF (JPEG, PNG, TIFF, WebP,
/// BMP): the same lines as for a HEIC where the format has the thing
/// (size and bit depth, orientation, ICC, EXIF, XMP), and the depth and
/// mattes a phone stored in a JPEG (MPF images, GDepth, Dynamic Depth), each
/// with where it was found.
struct StillInspection: Encodable {
    var file: String
    var bytes: Int
    var format: String
    var width: Int
    var height: Int
    var channels: Int
    var bitDepth: Int
    var orientation: Int
    var iccProfileBytes: Int?
    var exif: HEIFSummary.Exif?
    var xmpBytes: Int?
    var xmpNamespaces: [String]
    var auxiliary: [Auxiliary]
    /// What could not be read of the phone's depth data, when something could not.
    var depthNote: String?
    /// Where the phone focused its own depth-of-field render, when the file records it (Lens Blur's GFocus).
    var phoneFocus: PhoneFocusReport?

    struct PhoneFocusReport: Encodable {
        var x: Double
        var y: Double
        /// The blur radius between the depth's nearest and farthest, as a share of the width.
        var blurOverDepthRange: Double?
    }
    var livePhoto: LivePhotoInspection?

    /// One depth map, matte or extra image the file holds beside its primary.
    struct Auxiliary: Encodable {
        var role: String
        var width: Int
        var height: Int
        var channels: Int
        var sampleFormat: String
        var source: String?
        var depth: DepthRepresentation?
        /// The smallest and largest stored value (for depth and disparity, in the map's own units).
        var values: [Double]?
        /// For an HDR gain map: the stops above SDR white its full rendition reaches, as its own
        /// form states it (Ultra HDR) or the iPhone's maker note does.
        var headroomStops: Double?
        /// For a gain map kept in ISO 21496-1's form: what its metadata says it does.
        var mapping: String?
    }

    init(_ photo: Photo, file: URL, bytes: Int, format: String, livePhoto: LivePhotoInspection?) {
        self.file = file.path
        self.bytes = bytes
        self.format = format
        width = photo.primary.width
        height = photo.primary.height
        channels = photo.primary.channels
        bitDepth = photo.primary.format.bytesPerSample * 8
        orientation = photo.metadata.orientation.rawValue
        iccProfileBytes = photo.metadata.iccProfile?.count
        exif = photo.metadata.exif.map(HEIFSummary.Exif.init)
        xmpBytes = photo.metadata.xmp?.count
        xmpNamespaces = photo.metadata.xmp.map(HEIFInspector.namespaces) ?? []
        auxiliary = photo.auxiliary.keys.sorted { $0.rawValue < $1.rawValue }.compactMap { role in
            guard let image = photo.auxiliary[role] else { return nil }
            let info = photo.metadata.auxiliaryInfo[role]
            let measured = role == .depth || role == .disparity
            let headroom = role == .appleHDRGainMap ? photo.gainMapHeadroomStops : nil
            return Auxiliary(
                role: role.rawValue, width: image.width, height: image.height, channels: image.channels, sampleFormat: image.format.description,
                source: info?.source, depth: info?.depth, values: measured ? image.finiteRange().map { [$0.lowerBound, $0.upperBound] } : nil,
                headroomStops: headroom,
                mapping: role == .isoGainMap ? (try? UltraHDRJPEG.isoMetadata(of: photo)).map(GainMapForms.summary) ?? "its ISO 21496-1 metadata cannot be read" : nil)
        }
        depthNote = photo.metadata.notes["phoneDepth"]
        phoneFocus = photo.metadata.shared[PhoneFocus.sharedName].flatMap(PhoneFocus.init(encoded:)).map {
            PhoneFocusReport(x: $0.x, y: $0.y, blurOverDepthRange: $0.blurOverDepthRange)
        }
        self.livePhoto = livePhoto
    }

    var text: String {
        let colour = channels <= 2 ? "grey" : "colour"
        var lines = ["\(file) (\(bytes) bytes; \(format))"]
        lines.append("primary: \(width)x\(height), \(bitDepth == 32 ? "float" : "\(bitDepth)-bit") \(colour)"
            + (channels == 2 || channels == 4 ? " with alpha" : ""))
        lines.append("orientation: \(orientation)" + (orientation == 1 ? "" : " (EXIF; the pixels are stored unturned)"))
        lines.append("colour: " + (iccProfileBytes.map { "ICC profile, \($0) bytes" } ?? "no ICC profile (sRGB assumed)"))
        lines.append(InspectionText.exifLine(exif))
        lines.append(InspectionText.xmpLine(bytes: xmpBytes, namespaces: xmpNamespaces))
        if auxiliary.isEmpty {
            lines.append("auxiliary images: none (`mattebox process --aux-png` writes mattes beside the photo)")
        } else {
            lines.append("auxiliary images: \(auxiliary.count)")
            for aux in auxiliary {
                lines.append("  \(aux.role): \(aux.width)x\(aux.height), \(aux.sampleFormat) \(aux.channels == 1 ? "grey" : "colour")" + (aux.source.map { ", \($0)" } ?? ""))
                if let depth = aux.depth { lines.append(InspectionText.representationLine(depth)) }
                if let values = aux.values {
                    lines.append(String(format: "    stored values %.6g to %.6g", values[0], values[1]))
                }
                if let mapping = aux.mapping { lines.append("    mapping: \(mapping)") }
                if let stops = aux.headroomStops {
                    let stated = aux.source?.hasPrefix("Ultra HDR") == true ? "as the gain map's metadata states" : "from the Apple maker note"
                    lines.append(String(format: "    headroom: %.3gx SDR white (%.3g stops, ", pow(2, stops), stops) + stated + ")")
                }
            }
        }
        if let depthNote { lines.append("depth data not read: \(depthNote)") }
        if let focus = phoneFocus {
            lines.append(String(format: "the phone's focus: %.3f,%.3f of the photo", focus.x, focus.y)
                + (focus.blurOverDepthRange.map { String(format: "; its blur %.2f%% of the width from nearest to farthest", $0 * 100) } ?? "")
                + " (Lens Blur's GFocus; render starts there)")
        }
        lines.append(livePhoto.map { $0.lines.joined(separator: "\n") } ?? "not a Live Photo or Motion Photo")
        return lines.joined(separator: "\n")
    }
}
