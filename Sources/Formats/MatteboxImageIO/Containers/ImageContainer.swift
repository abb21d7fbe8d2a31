import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxMetadata
import MatteboxRuntime

/// One file format photos are read from and (for some) written to: the seam
/// a new container format plugs into. `ImageContainers` lists them; readers
/// are picked by the file's first bytes, writers by name (`--format`, the
/// `output.format` key), so adding a format is one type here and one line in
/// that list.
package protocol ImageContainer: Sendable {
    /// The name `--format`, reports and messages use ("jpeg").
    var name: String { get }
    /// Other names it answers to ("jpg"); names match case-insensitively.
    var aliases: [String] { get }
    /// What people call it in messages ("JPEG").
    var displayName: String { get }
    /// The extension written files get, without the dot.
    var fileExtension: String { get }
    /// True when a file starting with these bytes (up to 256) is in this format.
    func recognizes(_ header: [UInt8]) -> Bool
    /// Reads the photo: pixels as stored (not turned upright), the orientation
    /// to display them with, metadata and any auxiliary images the file holds.
    func readPhoto(at url: URL) throws -> Photo

    /// False for formats Mattebox only reads.
    var canWrite: Bool { get }
    /// True when the file holds auxiliary images (depth, mattes) beside the primary.
    var holdsAuxiliaryImages: Bool { get }
    /// True when Mattebox writes the photo's alpha (`ImageRole.alpha`) into this format.
    var holdsAlpha: Bool { get }
    /// For formats that carry a Motion Photo's movie (JPEG, HEIC): the MIME
    /// type its XMP names for the primary image, and the padding between the
    /// image's end and the movie (the HEIC's `mpvd` box header).
    var motionPhotoPrimary: (mime: String, padding: Int)? { get }
    /// The most bits per sample Mattebox writes in this format.
    var maximumBitsPerSample: Int { get }
    /// The quality used when none is asked for.
    var defaultQuality: Int { get }
    /// For HEIF formats, the codec their images are coded with (HEVC for HEIC, AV1 for AVIF).
    var itemCodec: (any ItemCodec)? { get }
    /// The encoded file; `notes` gains, by name, what of the photo or its
    /// input the file could not keep (beyond `limitations`).
    func encode(_ photo: Photo, quality: Int, heif: HEIFWriteOptions, notes: inout [String: String]) throws -> Data
}

extension ImageContainer {
    package var aliases: [String] { [] }
    package var canWrite: Bool { false }
    package var holdsAuxiliaryImages: Bool { false }
    package var holdsAlpha: Bool { false }
    package var motionPhotoPrimary: (mime: String, padding: Int)? { nil }
    package var maximumBitsPerSample: Int { 8 }
    package var itemCodec: (any ItemCodec)? { nil }

    /// What of `photo` this format cannot hold, as notes for the photo (by
    /// name): auxiliary images (unless `auxiliaryBeside`, written as files
    /// next to it), alpha, bit depth. Nothing is dropped without saying so.
    package func limitations(of photo: Photo, auxiliaryBeside: Bool) -> [String: String] {
        var notes: [String: String] = [:]
        let heldByJPEG = name == "jpeg" ? PhoneDepth.rolesHeldByJPEG(of: photo) : []
        let roles = photo.auxiliary.keys.sorted().filter { $0 != .alpha && !heldByJPEG.contains($0) }.map(\.rawValue)
        if !holdsAuxiliaryImages, !auxiliaryBeside, !roles.isEmpty {
            notes["auxiliaryImages"] =
                "\(roles.joined(separator: ", ")) not kept: \(displayName) holds only the primary image "
                + "(write HEIF with --format heic, or add --aux-png for PNG files beside it)"
        }
        if !holdsAlpha, photo.auxiliary[.alpha] != nil || photo.primary.channels == 2 || photo.primary.channels == 4 {
            notes["alpha"] = "the alpha channel was not kept: \(displayName) holds no transparency (write PNG or HEIC)"
        } else if holdsAlpha, let alpha = photo.auxiliary[.alpha], photo.primary.addingAlpha(alpha) == nil, !holdsAuxiliaryImages {
            notes["alpha"] = "the alpha channel was not kept: it is \(alpha.width)x\(alpha.height) \(alpha.format), "
                + "the picture \(photo.primary.width)x\(photo.primary.height) \(photo.primary.format)"
        }
        if !holdsAuxiliaryImages, let original = photo.metadata.codedOrigins[.primary]?.file.bytes,
            case var lost = HEIFOnePictureLosses.of(original), !lost.isEmpty
        {
            // A JPEG written as Ultra HDR carries the HDR rendition a tone map item describes, in its own form.
            if name == "jpeg", UltraHDRJPEG.carriesGainMap(photo) {
                lost = lost.map { $0.hasPrefix("the 'tmap' derived image") ? $0 + " (the HDR rendition it describes goes on as the Ultra HDR gain map)" : $0 }
            }
            notes["heifItems"] = "\(lost.joined(separator: "; ")) not kept: \(displayName) holds one picture (write HEIC with --format heic to keep them)"
        }
        if name != "jpeg", let original = photo.metadata.codedOrigins[.primary]?.file.bytes,
            case let kinds = JPEGSegments.unmodelledKinds(of: original), !kinds.isEmpty
        {
            // Lens Blur's depth and GImage live in the extended XMP: read, they travel as images.
            let carried = holdsAuxiliaryImages && photo.metadata.auxiliaryInfo.values.contains { $0.source?.hasPrefix("Lens Blur") == true }
            // So does an Ultra HDR gain map, which MPF and ISO 21496-1's segment located and described.
            // (The file's own gain map, by the role it is read under: a render redraws it, and what was said of the old image goes.)
            let gainMapKept = holdsAuxiliaryImages && UltraHDRJPEG.heldGainMapRole(original).map { photo.auxiliary[$0] != nil } == true
            let named = kinds.compactMap { kind -> String? in
                if carried && kind == "extended XMP" { return "extended XMP (its Lens Blur depth and GImage are kept as auxiliary images)" }
                if gainMapKept && kind == "ISO 21496-1 gain map metadata" { return nil }
                if gainMapKept && kind == "MPF (secondary images)" { return "MPF (its Ultra HDR gain map is kept as the auxiliary HDR gain map)" }
                return kind
            }
            notes["jpegSegments"] = "\(named.joined(separator: ", ")) of the JPEG not kept: \(displayName) output holds EXIF and XMP only"
        }
        if holdsAuxiliaryImages, photo.auxiliary[UltraHDRJPEG.gainMapRole] != nil, photo.metadata.exif?.appleHDRHeadroom == nil,
            let stops = photo.metadata.gainMap.headroomStops
        {
            notes["hdrGainMap"] = String(format: "the HDR gain map is kept in Apple's form, its headroom (%.2f stops) in an ISO 21496-1 tone map only: ", stops)
                + "Apple's readers take it from an iPhone's maker note, which this photo has none of (JPEG keeps it as Ultra HDR)"
        }
        if motionPhotoPrimary == nil, let movie = photo.metadata.motionPhotoMovie {
            notes["motionPhoto"] = "the Motion Photo's movie (\(movie.count) bytes) not kept: only a JPEG or HEIC output carries it"
        }
        let bits = photo.primary.format.bytesPerSample * 8
        if bits > maximumBitsPerSample {
            notes["bitDepth"] = "\(photo.primary.format) samples written as \(maximumBitsPerSample)-bit \(displayName)"
        }
        return notes
    }
    package var defaultQuality: Int { 92 }

    package func encode(_ photo: Photo, quality: Int, heif: HEIFWriteOptions, notes: inout [String: String]) throws -> Data {
        throw MatteboxError("Mattebox reads \(displayName) but does not write it")
    }

    /// True for `name` or any alias, ignoring case.
    package func answers(to name: String) -> Bool {
        ([self.name] + aliases).contains { $0.caseInsensitiveCompare(name) == .orderedSame }
    }
}
