import Foundation
import MatteboxISOBMFF

/// What a file's first bytes say it is, for formats Mattebox does not read,
/// so a refusal can name what the file looks like ("a Canon CR3 raw file")
/// instead of a library's guess.
enum FileSignature {
    /// True for an ISOBMFF file whose `ftyp` major or compatible brands include one of `brands`.
    static func isftyp(_ header: [UInt8], brands: Set<String>) -> Bool { ftypBrands(header).contains { brands.contains($0) } }

    static func ftypBrands(_ header: [UInt8]) -> [String] { HEIFFile.fileBrands(header) }

    private static let magic: [(bytes: [UInt8], what: String)] = [
        (Array("GIF8".utf8), "a GIF image"), (Array("BM".utf8), "a BMP image"), (Array("%PDF".utf8), "a PDF document"),
        ([0x50, 0x4B, 0x03, 0x04], "a ZIP archive"), ([0x1F, 0x8B], "a gzip archive"), (Array("8BPS".utf8), "a Photoshop document"),
        ([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20], "a JPEG 2000 image"), ([0xFF, 0x0A], "a JPEG XL image"),
        (Array("RIFF".utf8), "a RIFF file (WAV or AVI)"), (Array("ID3".utf8), "an MP3 file"), (Array("OggS".utf8), "an Ogg file"),
        (Array("\u{7F}ELF".utf8), "a program (ELF)"), (Array("P6".utf8), "a PPM image"),
    ]

    private static let ftypKinds: [String: String] = [
        "crx ": "a Canon CR3 raw file", "M4A ": "an M4A audio file", "qt  ": "a QuickTime movie",
        "isom": "an MP4 movie", "mp41": "an MP4 movie", "mp42": "an MP4 movie", "jxl ": "a JPEG XL image",
        "avif": "an AVIF image", "mif1": "a HEIF file of a kind Mattebox does not read",
    ]

    static func describe(_ header: [UInt8]) -> String? {
        if let major = ftypBrands(header).first { return ftypKinds[major] ?? "an ISO media file (brand '\(major)')" }
        if header.starts(with: Array("II*\0".utf8)) || header.starts(with: Array("MM\0*".utf8)) { return "a TIFF-based raw file" }
        if let known = magic.first(where: { header.starts(with: $0.bytes) })?.what { return known }
        return text(header)
    }

    /// Text of some kind (HTML, XML, JSON, plain), when the bytes are printable UTF-8: a page saved
    /// under a photo's name, an error message a download left.
    private static func text(_ header: [UInt8]) -> String? {
        // The header may end inside a character: up to three bytes short of the end are allowed to be cut.
        guard !header.isEmpty, !header.contains(0),
            let text = (0...min(3, header.count - 1)).lazy.compactMap({ String(bytes: header.dropLast($0), encoding: .utf8) }).first
        else { return nil }
        let printable = text.unicodeScalars.allSatisfy { $0.value >= 0x20 || $0 == "\n" || $0 == "\r" || $0 == "\t" }
        guard printable else { return nil }
        let start = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        if start.hasPrefix("<!doctype html") || start.hasPrefix("<html") { return "an HTML page" }
        if start.hasPrefix("<?xml") || start.hasPrefix("<svg") { return start.contains("<svg") ? "an SVG drawing" : "an XML file" }
        if start.hasPrefix("{") || start.hasPrefix("[") { return "JSON text" }
        return "a text file"
    }
}
