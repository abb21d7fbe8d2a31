import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxImageIO
import MatteboxPairedMedia
import MatteboxRuntime

/// Writes a processed photo the way every Mattebox command does: in the
/// format and quality the pipeline asked for (else the writer's defaults),
/// HEIF with its auxiliary images inside, atomically, and optionally each
/// auxiliary image beside it as `<stem>.<role>.png`.
package struct PhotoWriter: Sendable {
    package var directory: URL
    /// The format asked for (`--format`); nil: HEIC when the photo has
    /// auxiliary images (depth, mattes), so nothing is dropped, else JPEG.
    package var format: OutputFormat?
    /// Nil: the format's own default (`OutputFormat.defaultQuality`).
    package var quality: Int?
    package var writeAuxiliaryPNGs: Bool
    /// Encode every image again, even those a HEIF input holds unchanged (`--reencode`).
    package var reencode = false
    /// Write a JPEG with depth as Dynamic Depth even where its input's own bytes hold the depth (`--jpeg-depth dynamic-depth`).
    package var dynamicDepth = false
    /// What may be replaced; `manifest` (the output folder's, when there is
    /// one) says which existing files Mattebox wrote.
    package var safety: OutputSafety
    package var manifest: ResumeManifest?
    /// The rule for `format` nil, as help texts state it.
    package static let defaultFormatRule =
        "jpeg for a JPEG whose own depth and mattes (unchanged) and metadata a JPEG still holds; else heic when the photo has depth, mattes or alpha, its HEIF input holds other images, or its EXIF is too large for JPEG; else jpeg"

    /// The format a photo is written in: a stage's request, else the one asked for, else the default
    /// rule, which picks HEIC whenever JPEG would drop something the photo has. A stage that asks
    /// for "heif" (the HEIF packaging stage's `format: auto`) gets the HEIF format asked for: AVIF
    /// with `--format avif`, else HEIC; or the other format asked for when the auxiliary images go
    /// beside the photo as PNG files (`--format jpeg --aux-png`).
    package func format(for photo: Photo) -> OutputFormat {
        if photo.metadata.output.format == OutputFormat.runsHEIFFormat, let format, format.isHEIF || writeAuxiliaryPNGs {
            return format
        }
        if let chosen = photo.metadata.output.format.flatMap(OutputFormat.init(rawValue:)) ?? format { return chosen }
        // JPEG in, JPEG out, when its images are the ones its own file held (a phone's depth, kept as the JPEG
        // held it) and nothing would be lost; sidecars and a stage's mattes go to HEIC, as the rule below says.
        if photo.metadata.inputFormat == OutputFormat.jpeg.rawValue, PhoneDepth.fileStillHoldsAll(photo),
            OutputFormat.jpeg.container.limitations(of: photo, auxiliaryBeside: writeAuxiliaryPNGs).isEmpty
        {
            return .jpeg
        }
        let input = photo.metadata.codedOrigins[.primary]?.file.bytes ?? []
        let exifTooLarge = (photo.metadata.exif?.bytes.count ?? 0) > Self.largestJPEGExif
        return photo.auxiliary.isEmpty && !exifTooLarge && !HEIFOnePictureLosses.hasOtherImages(input) ? .jpeg : .heic
    }

    /// The formats a photo may be written in before its stages ran: the one asked for, else the
    /// default rule's two (a stage may still pick another; the writer checks that file then).
    package static func possibleFormats(asked: OutputFormat?) -> [OutputFormat] {
        asked.map { [$0] } ?? [.jpeg, .heic]
    }

    /// The file a photo with `stem` is written to in `format`: the one naming rule.
    package static func destination(in directory: URL, stem: String, format: OutputFormat) -> URL {
        directory.appendingPathComponent("\(stem).\(format.fileExtension)")
    }

    /// What one APP1 segment holds of EXIF: 65,535 bytes less its length field and "Exif\0\0".
    static let largestJPEGExif = 65_535 - 2 - 6

    package init(
        directory: URL, format: OutputFormat?, quality: Int? = nil, writeAuxiliaryPNGs: Bool = false,
        safety: OutputSafety = OutputSafety(), manifest: ResumeManifest? = nil
    ) {
        self.directory = directory
        self.format = format
        self.quality = quality
        self.writeAuxiliaryPNGs = writeAuxiliaryPNGs
        self.safety = safety
        self.manifest = manifest
    }

    /// What was written for a photo, and notes on what its format could not hold.
    package struct Written: Sendable {
        package var output: URL
        package var auxiliary: [URL]
        /// Its Live Photo movie, copied beside it.
        package var movie: URL?
        /// By name, as stages' notes: "auxiliaryImages", "alpha", "bitDepth", "format", "livePhoto".
        package var notes: [String: String]
        /// With `keepingPrimaryOrigin`, the primary as coded in the file written
        /// (HEIF and JPEG): given to the photo, a later write of it copies these
        /// bytes while its pixels are unchanged (a capture's final copies its
        /// proxy's primary). Not made otherwise: it hashes every pixel.
        package var primaryOrigin: CodedOrigin?
    }

    /// The photo's file, its auxiliary PNGs and, when `movie` (the movie
    /// beside the input with its name) is its Live Photo movie, a copy of it.
    /// `encodedAhead`: the primary's encode begun while the matte stages ran (`encodeAhead`).
    package func write(
        _ photo: Photo, stem: String, movie: URL? = nil, encodedAhead: PrimaryEncodeAhead? = nil, keepingPrimaryOrigin: Bool = false
    ) throws -> Written {
        let format = format(for: photo)
        var notes = format.container.limitations(of: photo, auxiliaryBeside: writeAuxiliaryPNGs)
        if let asked = self.format, format != asked {
            notes["format"] = "written as \(format) as a stage asked (output.format), not \(asked) as --format said"
            Log.emit(.warning, "\(photo.displayName): \(notes["format"]!)")
        }
        var heif = heifOptions(for: photo)
        heif.encodedAhead = encodedAhead
        let destination = Self.destination(in: directory, stem: stem, format: format)
        var companion: (source: URL, destination: URL)?
        if let movie {
            let (pairs, note) = LivePhotoCompanion.pairs(movie, with: photo)
            // Named as the still is, without a Motion Photo's ".MP" (IMG.MP.jpg pairs with IMG.mov).
            let copy = directory.appendingPathComponent("\(LivePhotoMovies.stem(of: stem)).\(movie.pathExtension)")
            // Written beside its input with the same name, the still pairs with the movie already there.
            if pairs, FileIdentity(copy) != FileIdentity(movie) { companion = (movie, copy) }
            notes["livePhoto"] = note
        }
        // Every file this photo would write is checked before any is written.
        let auxiliary = writeAuxiliaryPNGs ? photo.auxiliary.keys.sorted() : []
        for url in [destination] + auxiliary.map({ auxiliaryURL(stem: stem, role: $0) }) {
            try safety.check(url, source: photo.source, ownership: ownership)
        }
        if let companion {
            try safety.check(companion.destination, source: companion.source, ownership: ownership)
        }
        let encoded = try ImageEncoder.encode(photo, as: format, quality: quality(for: photo, in: format), heif: heif, notes: &notes)
        try put(encoded, at: destination)
        let auxiliaryFiles = try writeAuxiliaryImages(auxiliary, of: photo, stem: stem)
        if let companion { try put(try Data(contentsOf: companion.source), at: companion.destination) }
        return Written(
            output: destination, auxiliary: auxiliaryFiles, movie: companion?.destination, notes: notes,
            primaryOrigin: keepingPrimaryOrigin ? Self.primaryOrigin(of: photo, in: encoded, format: format) : nil)
    }

    private static func primaryOrigin(of photo: Photo, in encoded: Data, format: OutputFormat) -> CodedOrigin? {
        let bytes = [UInt8](encoded)
        let item: UInt32
        switch format {
        case _ where format.isHEIF: guard let primary = try? HEIFReader.primaryItem(of: bytes) else { return nil }
            item = primary
        case .jpeg: item = 0
        default: return nil
        }
        return CodedOrigin(file: EncodedFile(bytes), item: item, decoded: photo.primary, iccProfile: photo.metadata.iccProfile)
    }

    /// Starts encoding the primary as HEIF now, on its own thread, when the
    /// photo will be written as HEIF: called once no later stage changes the
    /// primary's pixels, while the matte stages still run. The photo has no
    /// mattes yet, so HEIC is expected unless a format is fixed otherwise (AVIF is encoded ahead too);
    /// `write` uses the result only if pixels and settings still match.
    package func encodeAhead(_ photo: Photo) -> PrimaryEncodeAhead? {
        let fixed = photo.metadata.output.format == nil && format == nil ? OutputFormat.heic : self.format(for: photo)
        guard let codec = fixed.container.itemCodec else { return nil }
        var options = heifOptions(for: photo)
        options.codec = codec
        options.quality = quality(for: photo, in: fixed)
        return PrimaryEncodeAhead(photo, options: options)
    }

    private func heifOptions(for photo: Photo) -> HEIFWriteOptions {
        let request = photo.metadata.output
        var options = HEIFWriteOptions(
            preset: request.encoderPreset, thumbnailSize: request.thumbnailSize ?? HEIFWriteOptions().thumbnailSize,
            passthrough: !reencode)
        options.dynamicDepth = dynamicDepth
        return options
    }

    private func quality(for photo: Photo, in format: OutputFormat) -> Int {
        photo.metadata.output.quality ?? quality ?? format.defaultQuality
    }

    /// Whose an existing file is: without a manifest (capture, the app) nothing there is Mattebox's.
    private func ownership(_ url: URL) -> ResumeManifest.Ownership {
        manifest?.ownership(of: url) ?? .unlisted
    }

    /// Records the file in the manifest, then writes it atomically: a file
    /// Mattebox put in place is always one the manifest knows. A manifest that
    /// cannot be written (a full disk) fails the photo before anything is written.
    private func put(_ data: Data, at url: URL) throws {
        do {
            try manifest?.recordWriting(data, at: url)
        } catch {
            throw MatteboxError("\(error); \(url.lastPathComponent) was not written, so --resume will do this photo again")
        }
        do {
            try AtomicFile.write(data, to: url)
        } catch {
            manifest?.withdrawWriting(data, at: url)
            throw error
        }
    }

    private func auxiliaryURL(stem: String, role: ImageRole) -> URL {
        directory.appendingPathComponent("\(stem).\(role.rawValue).png")
    }

    /// 8- and 16-bit images as they are; float ones (depth in metres,
    /// disparity) as 16-bit with their scale stated in the PNG (`ScaledPNG`).
    private func writeAuxiliaryImages(_ roles: [ImageRole], of photo: Photo, stem: String) throws -> [URL] {
        try roles.map { role in
            let image = photo.auxiliary[role]!
            let url = auxiliaryURL(stem: stem, role: role)
            let png: Data
            if image.format == .float32, image.channels == 1 {
                png = try ScaledPNG.encode(image, what: role.rawValue)
            } else {
                png = try ImageEncoder.encode(image, as: .png)
            }
            try put(png, at: url)
            return url
        }
    }
}
