import ArgumentParser
import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxImageIO
import MatteboxRuntime

/// `mattebox inspect`: what a HEIF file holds, read from its boxes, and on
/// request a contact sheet to see whether its depth and mattes line up.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "List a HEIF file's primary image, orientation, thumbnail, EXIF/XMP and auxiliary images.",
        discussion: """
            The listing comes from the file's boxes (nothing is decoded), so it also works on files \
            libheif refuses; the last line says whether this machine's libheif can open the file. \
            --sheet decodes everything and renders the primary beside each auxiliary image (depth in \
            a colour map) and each one laid over the primary, with labels.
            """)

    @OptionGroup var verbosity: Verbosity
    @Argument(help: "A HEIF/HEIC file, or - for standard input.") var file: String
    @Flag(help: "Print the listing as JSON.") var json = false
    @Option(help: "Also write a contact sheet PNG to this path (its folder must exist).") var sheet: String?
    @Flag(help: "Replace the contact sheet if it exists.") var overwrite = false
    @Option(help: "Height of each image on the contact sheet, in pixels.") var sheetHeight: Int = 240

    func run() throws {
        var spool: URL?
        defer { StandardStreams.cleanUp(spool) }
        let url = try StandardStreams.input(file) {
            spool = try StandardStreams.temporaryFolder()
            return spool!
        }
        try InputFile.checkReadable(url)
        if ImageContainers.container(of: url)?.name != "heic" {
            let kind = ImageContainers.describe(url).map { " (it looks like \($0))" } ?? ""
            throw MatteboxError("\(url.path): not a HEIF file\(kind); inspect reads HEIF and HEIC files")
        }
        let sheetTarget = try sheet.map { path in
            try OutputPath.resolve(
                path, defaultName: url.deletingPathExtension().lastPathComponent + "-sheet.png", extensions: ["png"],
                what: "the contact sheet", inputs: [url], overwrite: overwrite)
        }
        let summary = try HEIFInspector.inspect(at: url)
        let libheif = HEIFInspector.libheifVerdict(at: url)
        if json {
            try JSONOutput.print(HEIFInspectReport(summary: summary, libheif: libheif))
        } else {
            print(InspectionText.render(summary, libheif: libheif))
        }
        if let sheetTarget {
            let photo = try ImageDecoder.decodePhoto(at: url)
            let image = try ContactSheet.render(photo, tileHeight: sheetHeight)
            try OutputPath.write(try ImageEncoder.encode(image, as: .png), to: sheetTarget)
            if !json, case .file(let destination) = sheetTarget {
                print("contact sheet: \(destination.path) (\(image.width)x\(image.height))")
            }
        }
    }
}

/// The JSON `inspect --json` prints: the summary plus libheif's verdict.
struct HEIFInspectReport: Encodable {
    var summary: HEIFSummary
    var libheif: String

    func encode(to encoder: Encoder) throws {
        try summary.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(libheif, forKey: .libheif)
    }

    private enum Key: String, CodingKey { case libheif }
}
