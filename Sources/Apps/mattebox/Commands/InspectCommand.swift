import ArgumentParser
import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxImageIO
import MatteboxImageOps
import MatteboxMovie
import MatteboxPairedMedia
import MatteboxRuntime

/// `mattebox inspect`: what a HEIF file holds, read from its boxes, and on
/// request a contact sheet to see whether its depth and mattes line up.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "List what a photo holds (HEIF: primary, orientation, thumbnail, EXIF/XMP, auxiliary images; JPEG, PNG, TIFF: the same where the format has it).",
        discussion: """
            The listing comes from the file's boxes (nothing is decoded), so it also works on files \
            libheif refuses; the last line says whether this machine's libheif can open the file. \
            A Live Photo's pairing is shown too: the content identifier in the still and the movie \
            beside it (same name, .mov) with its identifier and still time, or a Motion Photo's \
            embedded movie (offset, length, duration). inspect also reads JPEG, PNG, TIFF and WebP stills \
            (size, bit depth, orientation, ICC, EXIF, XMP, and a JPEG's pairing) and QuickTime/MP4 movies \
            (duration, coding, identifier, still time). \
            --sheet decodes everything and renders the primary beside each auxiliary image (depth in \
            a colour map) and each one laid over the primary, with labels.
            """)

    @OptionGroup var verbosity: Verbosity
    @Argument(help: "HEIF/HEIC files, JPEG, PNG, TIFF or WebP stills, QuickTime/MP4 movies, or - for standard input (several: each in turn; --json prints an array).")
    var files: [String]
    @Flag(help: "Print the listing as JSON.") var json = false
    @Option(help: "Also write a contact sheet PNG to this path (its folder must exist).") var sheet: String?
    @Flag(help: "Replace the contact sheet if it exists.") var overwrite = false
    @Option(help: "Height of each image on the contact sheet, in pixels (with --sheet-crop: default the crop's own height, at most 2048).")
    var sheetHeight: Int?
    @Option(
        help: ArgumentHelp(
            "Draw only this region of the photo as displayed on the contact sheet, from every image at its own resolution: X,Y,WIDTHxHEIGHT in the photo's pixels (e.g. 1350,150,800x800).",
            valueName: "X,Y,WxH"))
    var sheetCrop: String?

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("give a file to inspect") }
        if files.count > 1, let sheet, !sheet.hasSuffix("/"), !FileManager.default.fileExists(atPath: sheet + "/.") {
            throw ValidationError("--sheet with several files takes a folder (each sheet is named after its photo), not \(sheet)")
        }
    }

    /// Each file in turn, as exiftool and heif-info take several; one that cannot be read is an
    /// error named on standard error, the others are still inspected, and the exit status is 1.
    func run() throws {
        var reports: [Data] = []
        var failed = 0
        for (index, file) in files.enumerated() {
            if !json, index > 0 { print() }
            do {
                if let report = try inspect(file) { reports.append(report) }
            } catch {
                guard files.count > 1 else { throw error }
                failed += 1
                Log.emit(.error, "\(error)")
            }
        }
        if json {
            let joined = files.count == 1 ? (reports.first ?? Data()) : Data("[\n".utf8) + Data(reports.joined(separator: Data(",\n".utf8))) + Data("\n]".utf8)
            FileHandle.standardOutput.write(joined + Data("\n".utf8))
        }
        if failed > 0 { throw ExitCode(1) }
    }

    /// One file: its listing printed (text), or returned (JSON).
    private func inspect(_ file: String) throws -> Data? {
        var spool: URL?
        defer { StandardStreams.cleanUp(spool) }
        let url = try StandardStreams.input(file) {
            spool = try StandardStreams.temporaryFolder()
            return spool!
        }
        try InputFile.checkReadable(url)
        if let other = try inspectOther(url) { return other.isEmpty ? nil : other }
        if ImageContainers.container(of: url)?.itemCodec == nil {
            let kind = ImageContainers.describe(url).map { " (it looks like \($0))" } ?? ""
            throw MatteboxError("\(url.path): not a photo or movie Mattebox reads\(kind); inspect reads HEIF/HEIC, JPEG, PNG, TIFF, WebP and BMP stills and QuickTime/MP4 movies")
        }
        let sheetTarget = try sheetTarget(for: url)
        let (summary, motionPhoto) = try HEIFInspector.inspectWithMotionPhoto(at: url)
        let libheif = HEIFInspector.libheifVerdict(at: url)
        let live = LivePhotoInspection.inspect(
            still: url, contentIdentifier: summary.exif?.contentIdentifier, motionPhotoMovie: motionPhoto?.movie, xmp: motionPhoto?.xmp)
        var report: Data?
        if json {
            report = try JSONOutput.encode(HEIFInspectReport(summary: summary, libheif: libheif, livePhoto: live.isEmpty ? nil : live))
        } else {
            print(InspectionText.render(summary, libheif: libheif))
            for line in live.lines { print(line) }
        }
        if let sheetTarget { try writeSheet(of: try ImageDecoder.decodePhoto(at: url), to: sheetTarget) }
        return report
    }
}

extension InspectCommand {
    /// "X,Y,WxH" (or "X,Y,W,H") → the crop rectangle.
    static func parseCrop(_ text: String) throws -> ContactSheet.Region {
        let numbers = text.split(whereSeparator: { $0 == "," || $0 == "x" }).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.count == 4, let x = numbers[0], let y = numbers[1], let width = numbers[2], let height = numbers[3],
            x >= 0, y >= 0, width > 0, height > 0
        else { throw ValidationError("--sheet-crop takes X,Y,WIDTHxHEIGHT in the photo's pixels (e.g. 1350,150,800x800), not \(text)") }
        return ContactSheet.Region(x: x, y: y, width: width, height: height)
    }

    private func sheetTarget(for url: URL) throws -> OutputPath.Target? {
        try sheet.map { path in
            try OutputPath.resolve(
                path, defaultName: url.deletingPathExtension().lastPathComponent + "-sheet.png", extensions: ["png"],
                what: "the contact sheet", inputs: [url], overwrite: overwrite)
        }
    }

    /// The primary beside each auxiliary image, as PNG.
    private func writeSheet(of photo: Photo, to target: OutputPath.Target) throws {
        let crop = try sheetCrop.map(Self.parseCrop)
        let image = try ContactSheet.render(
            photo, tileHeight: sheetHeight ?? crop.map { min(2048, $0.height) } ?? 240, crop: crop, gainMap: GainMapForms.rendition(of: photo))
        try OutputPath.write(try ImageEncoder.encode(image, as: .png), to: target)
        if !json, case .file(let destination, _) = target {
            print("contact sheet: \(destination.path) (\(image.width)x\(image.height))")
        }
    }

    private static func byteCount(of url: URL) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int ?? 0
    }

    /// Movies and JPEG stills: what they say of a Live Photo, printed (empty data) or as JSON;
    /// nil for anything else.
    private func inspectOther(_ url: URL) throws -> Data? {
        let head = try FileHandle(forReadingFrom: url).read(upToCount: 16) ?? Data()
        if MovieInspector.looksLikeMovie(ArraySlice(head)) {
            guard sheet == nil else { throw ValidationError("--sheet draws photos; \(url.path) is a movie") }
            let summary = try MovieInspector.inspect(at: url)
            let bytes = Self.byteCount(of: url)
            if json { return try JSONOutput.encode(MovieInspectReport(file: url.path, bytes: bytes, movie: summary)) }
            print(MovieInspectionText.render(summary, path: url.path, bytes: bytes))
            return Data()
        }
        guard let container = ImageContainers.container(of: url), container.itemCodec == nil else { return nil }
        let sheetTarget = try sheetTarget(for: url)
        let photo = try ImageContainers.reader(for: url).readPhoto(at: url)
        let live = LivePhotoInspection.inspect(
            still: url, contentIdentifier: photo.metadata.exif?.appleContentIdentifier, motionPhotoMovie: photo.metadata.motionPhotoMovie,
            xmp: photo.metadata.xmp)
        let still = StillInspection(
            photo, file: url, bytes: Self.byteCount(of: url), format: container.displayName, livePhoto: live.isEmpty ? nil : live)
        let report = json ? try JSONOutput.encode(still) : Data()
        if !json { print(still.text) }
        if let sheetTarget { try writeSheet(of: photo, to: sheetTarget) }
        return report
    }
}

/// The JSON `inspect --json` prints: the summary plus libheif's verdict and the Live Photo pairing.
struct HEIFInspectReport: Encodable {
    var summary: HEIFSummary
    var libheif: String
    var livePhoto: LivePhotoInspection?

    func encode(to encoder: Encoder) throws {
        try summary.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(libheif, forKey: .libheif)
        try container.encodeIfPresent(livePhoto, forKey: .livePhoto)
    }

    private enum Key: String, CodingKey { case libheif, livePhoto }
}

/// `inspect --json` of a movie.
struct MovieInspectReport: Encodable {
    var file: String
    var bytes: Int
    var movie: MovieSummary
}

