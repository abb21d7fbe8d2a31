import Foundation
import MatteboxCore
import MatteboxRuntime

/// Every container format Mattebox knows, in the order files are sniffed:
/// the one place a new format is registered.
public enum ImageContainers {
    public static let all: [any ImageContainer] = [
        HEIFImageContainer(),
        VipsContainer.jpeg, VipsContainer.png, VipsContainer.tiff, VipsContainer.webp,
        // Last: whatever else libvips loads (AVIF, GIF, ...), read only.
        VipsContainer.otherFormats,
    ]

    /// The formats photos can be written as.
    public static var writable: [any ImageContainer] { all.filter(\.canWrite) }

    /// The writable container called `name` (or an alias of it), in any case.
    public static func writer(named name: String) -> (any ImageContainer)? {
        writable.first { $0.answers(to: name) }
    }

    /// The container whose signature the file starts with.
    public static func reader(for url: URL) throws -> any ImageContainer {
        let header = try Self.header(of: url)
        guard let container = all.first(where: { $0.recognizes(header) }) else {
            throw MatteboxError("\(url.path): not an image format Mattebox reads")
        }
        return container
    }

    /// "jpeg, png or heic": the writable names for help and messages.
    public static var writableNames: String {
        let names = writable.map(\.name)
        return names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    private static func header(of url: URL) throws -> [UInt8] {
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
public struct OutputFormat: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    /// Nil unless a writable container answers to `rawValue`.
    public init?(rawValue: String) {
        guard let container = ImageContainers.writer(named: rawValue) else { return nil }
        self.rawValue = container.name
    }

    public static let jpeg = OutputFormat(rawValue: "jpeg")!
    public static let png = OutputFormat(rawValue: "png")!
    public static let heic = OutputFormat(rawValue: "heic")!

    public var container: any ImageContainer { ImageContainers.writer(named: rawValue)! }
    public var defaultQuality: Int { container.defaultQuality }
    public var fileExtension: String { container.fileExtension }
    public var description: String { rawValue }
}
