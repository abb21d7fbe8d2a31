import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxImageIO
import MatteboxPairedMedia

/// What `inspect` says of a still that is not HEIF (JPEG, PNG, TIFF, WebP,
/// BMP): the same lines as for a HEIC where the format has the thing
/// (size and bit depth, orientation, ICC, EXIF, XMP), and that it holds no
/// auxiliary images.
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
    var livePhoto: LivePhotoInspection?

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
        lines.append("auxiliary images: none (\(format) holds only the primary; `mattebox process --aux-png` writes mattes beside it)")
        lines.append(livePhoto.map { $0.lines.joined(separator: "\n") } ?? "not a Live Photo or Motion Photo")
        return lines.joined(separator: "\n")
    }
}
