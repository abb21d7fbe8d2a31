import Foundation
import MatteboxCore
import MatteboxRuntime

/// Every container format Mattebox knows, in the order files are sniffed:
/// the one place a new format is registered.
package enum ImageContainers {
    package static let all: [any ImageContainer] = [
        HEIFImageContainer.heic, HEIFImageContainer.avif,
        JPEGContainer(), PNGContainer(), VipsReadOnlyContainer.tiff, VipsReadOnlyContainer.webp,
        VipsReadOnlyContainer.netpbm, BMPContainer(),
    ]

    /// The MIME type of each photo file extension, and of the movies that go with photos
    /// (Live Photos): the one table the app serves files by and folders are walked by.
    package static let mimeTypes: [String: String] = [
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "jpe": "image/jpeg", "png": "image/png",
        "tif": "image/tiff", "tiff": "image/tiff", "webp": "image/webp", "heic": "image/heic",
        "heif": "image/heif", "hif": "image/heif", "avif": "image/avif", "bmp": "image/bmp",
        "mov": "video/quicktime", "mp4": "video/mp4",
    ]

    /// The file extensions of photos: folders are walked for these (not for data such as PFM).
    package static let photoExtensions = Set(mimeTypes.filter { $0.value.hasPrefix("image/") }.keys)

    /// The MIME type of a file by its extension (any case); `application/octet-stream` when unknown.
    package static func mimeType(ofFileNamed name: String) -> String {
        mimeTypes[(name as NSString).pathExtension.lowercased()] ?? "application/octet-stream"
    }

    /// The formats photos can be written as.
    package static var writable: [any ImageContainer] { all.filter(\.canWrite) }

    /// The writable container called `name` (or an alias of it), in any case.
    package static func writer(named name: String) -> (any ImageContainer)? {
        writable.first { $0.answers(to: name) }
    }

    /// The container whose signature the file starts with.
    package static func reader(for url: URL) throws -> any ImageContainer {
        let header = try Self.header(of: url)
        guard let container = container(recognizing: header) else {
            let guess = FileSignature.describe(header).map { " (it looks like \($0))" } ?? ""
            throw MatteboxError("\(url.path): not an image format Mattebox reads\(guess); it reads \(readableNames)")
        }
        return container
    }

    /// The container a file is in, by its first bytes, when Mattebox reads it.
    package static func container(of url: URL) -> (any ImageContainer)? {
        guard let header = try? Self.header(of: url) else { return nil }
        return container(recognizing: header)
    }

    /// The container whose signature `header` (a file's first bytes) starts with.
    package static func container(recognizing header: [UInt8]) -> (any ImageContainer)? {
        all.first { $0.recognizes(header) }
    }

    /// What a file is, in words with an article ("a JPEG image", "a Canon CR3
    /// raw file"), by its first bytes; nil when nothing is recognised.
    package static func describe(_ url: URL) -> String? {
        guard let header = try? Self.header(of: url) else { return nil }
        if let container = container(recognizing: header) {
            let article = "AEFHILMNORSX".contains(container.displayName.first ?? "x") ? "an" : "a"
            return "\(article) \(container.displayName) image"
        }
        return FileSignature.describe(header)
    }

    /// "JPEG, PNG, TIFF, WebP, HEIF and AVIF".
    package static var readableNames: String {
        let names = all.map(\.displayName)
        return names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names.last!
    }

    /// "jpeg, png or heic": the writable names for help and messages.
    package static var writableNames: String {
        let names = writable.map(\.name)
        return names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    static func header(of url: URL) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw MatteboxError("\(url.path): cannot be opened for reading: \(String(cString: strerror(errno)))")
        }
        defer { try? handle.close() }
        return [UInt8]((try? handle.read(upToCount: 256)) ?? Data())
    }
}

/// A format photos are written as: the name of a writable `ImageContainer`,
/// as `--format` and the `output.format` key give it (any case, or an alias
/// such as "jpg"), kept in its canonical form.
package struct OutputFormat: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    package let rawValue: String

    /// Nil unless a writable container answers to `rawValue`.
    package init?(rawValue: String) {
        guard let container = ImageContainers.writer(named: rawValue) else { return nil }
        self.rawValue = container.name
    }

    package static let jpeg = OutputFormat(rawValue: "jpeg")!
    package static let png = OutputFormat(rawValue: "png")!
    package static let heic = OutputFormat(rawValue: "heic")!
    package static let avif = OutputFormat(rawValue: "avif")!
    /// What a stage sets `output.format` to for "HEIF, in the codec the run asks for" (the HEIF
    /// packaging stage's `format: auto`): AVIF with `--format avif`, else HEIC (`PhotoWriter.format(for:)`).
    package static let runsHEIFFormat = "heif"

    /// True for the HEIF formats (HEIC, AVIF): one layout, one codec each.
    package var isHEIF: Bool { container.itemCodec != nil }

    package var container: any ImageContainer { ImageContainers.writer(named: rawValue)! }
    /// Each lossy format's own default quality, for help texts ("92 for JPEG, 75 for HEIC, 90 for AVIF").
    package static var defaultQualities: String {
        [jpeg, heic, avif].map { "\($0.defaultQuality) for \($0.rawValue.uppercased())" }.joined(separator: ", ")
    }
    package var defaultQuality: Int { container.defaultQuality }
    package var fileExtension: String { container.fileExtension }
    package var description: String { rawValue }
}
