import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxImageIO
import MatteboxRuntime

/// Writes a processed photo the way every Mattebox command does: in the
/// format and quality the pipeline asked for (else the writer's defaults),
/// HEIF with its auxiliary images inside, atomically, and optionally each
/// auxiliary image beside it as `<stem>.<role>.png`.
public struct PhotoWriter: Sendable {
    public var directory: URL
    public var format: OutputFormat
    /// Nil: 92 for JPEG, 75 for HEIF.
    public var quality: Int?
    public var writeAuxiliaryPNGs: Bool

    public init(directory: URL, format: OutputFormat, quality: Int? = nil, writeAuxiliaryPNGs: Bool = false) {
        self.directory = directory
        self.format = format
        self.quality = quality
        self.writeAuxiliaryPNGs = writeAuxiliaryPNGs
    }

    /// The photo's file and its auxiliary PNGs.
    public func write(_ photo: Photo, stem: String) throws -> (output: URL, auxiliary: [URL]) {
        let request = photo.metadata.output
        let format = request.format.flatMap(OutputFormat.init(rawValue:)) ?? format
        let heif = HEIFWriteOptions(
            preset: request.encoderPreset, thumbnailSize: request.thumbnailSize ?? HEIFWriteOptions().thumbnailSize)
        let encoded = try ImageEncoder.encode(
            photo, as: format, quality: request.quality ?? quality ?? format.defaultQuality, heif: heif)
        let destination = directory.appendingPathComponent("\(stem).\(format.fileExtension)")
        try AtomicFile.write(encoded, to: destination)
        return (destination, writeAuxiliaryPNGs ? try writeAuxiliaryImages(of: photo, stem: stem) : [])
    }

    /// 8- and 16-bit images as they are; float ones (depth in metres,
    /// disparity) as 16-bit with their scale stated in the PNG (`ScaledPNG`).
    private func writeAuxiliaryImages(of photo: Photo, stem: String) throws -> [URL] {
        try photo.auxiliary.keys.sorted().map { role in
            let image = photo.auxiliary[role]!
            let url = directory.appendingPathComponent("\(stem).\(role.rawValue).png")
            let png: Data
            if image.format == .float32, image.channels == 1 {
                png = try ScaledPNG.encode(image, what: role.rawValue)
            } else {
                png = try ImageEncoder.encode(image, as: .png)
            }
            try AtomicFile.write(png, to: url)
            return url
        }
    }
}
