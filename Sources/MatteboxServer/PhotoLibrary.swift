import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxImageIO
import MatteboxRuntime
import Synchronization

/// The camera app's library: the photos in one folder, whoever wrote them
/// (the app, `mattebox capture`, other tools), newest first. What each file
/// holds (size, auxiliary images) and its thumbnail are kept in
/// `.mattebox/` inside the folder, keyed by the file's size and modification
/// time, so the library survives restarts and a changed file is read again.
/// Deleting moves a photo to `.trash/`, from where it can be restored. Only
/// plain files directly in the folder are ever reached: names with a slash, a
/// leading dot, or that are symbolic links are refused.
final class PhotoLibrary: Sendable {
    /// One photo as the page lists it.
    struct Item: Codable, Sendable, Equatable {
        var id: String
        var bytes: Int64
        var modified: Date
        var width: Int?
        var height: Int?
        /// Auxiliary images the viewer can lay over the photo (depth, mattes).
        var auxiliary: [String]
        var problem: String?
    }

    private struct Index: Codable {
        var items: [String: Item] = [:]
    }

    let folder: URL
    private let stateFolder: URL
    private let trashFolder: URL
    private let index = Mutex(Index())
    static let photoExtensions: Set<String> = ["heic", "heif", "jpg", "jpeg", "png", "tif", "tiff", "webp", "avif"]

    init(folder: URL) throws {
        self.folder = folder.standardizedFileURL
        stateFolder = self.folder.appendingPathComponent(".mattebox", isDirectory: true)
        trashFolder = self.folder.appendingPathComponent(".trash", isDirectory: true)
        for directory in [self.folder, stateFolder, stateFolder.appendingPathComponent("thumbnails"), trashFolder] {
            do { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
                throw MatteboxError("\(directory.path): cannot create the library folder: \(SystemError.describe(error))")
            }
        }
        if let data = try? Data(contentsOf: indexURL), let saved = try? JSONDecoder().decode(Index.self, from: data) {
            index.withLock { $0 = saved }
        }
    }

    private var indexURL: URL { stateFolder.appendingPathComponent("library.json") }

    // MARK: Listing

    /// The photos in the folder, newest first; files new or changed since the index was written are read now.
    func items() -> [Item] { list(in: folder, indexed: true) }

    /// The photos in the trash, newest first.
    func trashed() -> [Item] { list(in: trashFolder, indexed: false) }

    private func list(in directory: URL, indexed: Bool) -> [Item] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var known = index.withLock { $0.items }
        var changed = false
        var items: [Item] = []
        for name in names where Self.isPhotoName(name) {
            guard let info = Self.plainFile(directory.appendingPathComponent(name)) else { continue }
            if let cached = known[name], cached.bytes == info.bytes, cached.modified == info.modified {
                items.append(cached)
                continue
            }
            let item = Self.describe(directory.appendingPathComponent(name), id: name, bytes: info.bytes, modified: info.modified)
            items.append(item)
            if indexed {
                known[name] = item
                changed = true
            }
        }
        if indexed {
            let present = Set(items.map(\.id))
            if known.keys.contains(where: { !present.contains($0) }) {
                known = known.filter { present.contains($0.key) }
                changed = true
            }
            if changed { save(known) }
        }
        return items.sorted { $0.modified != $1.modified ? $0.modified > $1.modified : $0.id > $1.id }
    }

    private func save(_ items: [String: Item]) {
        index.withLock { $0.items = items }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do { try AtomicFile.write(try encoder.encode(Index(items: items)), to: indexURL) } catch {
            Log.emit(.warning, "\(indexURL.path): cannot save the library index: \(error)")
        }
    }

    private static func describe(_ url: URL, id: String, bytes: Int64, modified: Date) -> Item {
        var item = Item(id: id, bytes: bytes, modified: modified, auxiliary: [])
        do {
            // A HEIF says what it holds in its boxes: no need to decode its pixels to list it.
            if HEIFReader.recognizes(header(of: url)) {
                let summary = try HEIFInspector.inspect(at: url)
                item.width = summary.primary.width
                item.height = summary.primary.height
                item.auxiliary = summary.auxiliary.map(\.role).filter { $0 != ImageRole.alpha.rawValue }.sorted()
                return item
            }
            let photo = try ImageDecoder.decodePhoto(at: url).displayedUpright()
            item.width = photo.primary.width
            item.height = photo.primary.height
            item.auxiliary = photo.auxiliary.keys.filter { $0 != .thumbnail && $0 != .alpha }.map(\.rawValue).sorted()
        } catch {
            item.problem = "\(error)"
        }
        return item
    }

    // MARK: Files

    static func isPhotoName(_ name: String) -> Bool {
        !name.hasPrefix(".") && photoExtensions.contains((name as NSString).pathExtension.lowercased())
    }

    /// A regular file's size and modification time; nil for anything else (links, folders, FIFOs).
    private static func plainFile(_ url: URL) -> (bytes: Int64, modified: Date)? {
        var status = stat()
        guard lstat(url.path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        let modified = Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9)
        return (Int64(status.st_size), modified)
    }

    /// The file behind a library id, or an error a client may see (the id is never trusted).
    func file(_ id: String, inTrash: Bool = false) throws -> URL {
        guard Self.isPhotoName(id), !id.contains("/"), !id.contains("\0"), id != "..", id.count <= 255 else {
            throw LibraryError.notFound(id)
        }
        let url = (inTrash ? trashFolder : folder).appendingPathComponent(id)
        guard Self.plainFile(url) != nil else { throw LibraryError.notFound(id) }
        return url
    }

    private static func header(of url: URL) -> [UInt8] {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return [] }
        defer { try? handle.close() }
        return [UInt8]((try? handle.read(upToCount: 256)) ?? Data())
    }

    func photo(_ id: String) throws -> Photo {
        let url = try file(id)
        do { return try ImageDecoder.decodePhoto(at: url) } catch { throw LibraryError.unreadable(id, "\(error)") }
    }

    /// A JPEG thumbnail, made once per version of the file and kept in `.mattebox/thumbnails`.
    func thumbnail(_ id: String) throws -> Data {
        let url = try file(id)
        guard let info = Self.plainFile(url) else { throw LibraryError.notFound(id) }
        let key = "\(id)-\(info.bytes)-\(Int64(info.modified.timeIntervalSince1970 * 1000)).jpg"
        let cached = stateFolder.appendingPathComponent("thumbnails").appendingPathComponent(key)
        if let data = try? Data(contentsOf: cached) { return data }
        // A HEIF's own thumbnail (thmb) when it has one: no need to decode the whole photo.
        let stored = HEIFReader.recognizes(Self.header(of: url)) ? try? HEIFReader.readThumbnail(at: url) : nil
        let photo = try stored ?? self.photo(id)
        let data = try ImageEncoder.encode(try ContactSheet.thumbnail(photo), as: .jpeg, quality: 82)
        try? AtomicFile.write(data, to: cached)
        return data
    }

    /// An auxiliary image laid over the photo, as `inspect --sheet` draws it, as PNG;
    /// for "primary", the photo itself (upright, at most 1024 px).
    func overlay(_ id: String, role: String) throws -> Data {
        let photo = try self.photo(id)
        if role == "primary" {
            return try ImageEncoder.encode(try ContactSheet.thumbnail(photo, longSide: 1024, storedThumbnail: false), as: .jpeg, quality: 88)
        }
        guard photo.auxiliary[ImageRole(rawValue: role)] != nil else { throw LibraryError.noAuxiliary(id, role) }
        return try ImageEncoder.encode(try ContactSheet.overlay(photo, role: ImageRole(rawValue: role)), as: .png)
    }

    // MARK: Trash

    /// Moves a photo to the trash (never deletes it).
    func trash(_ id: String) throws {
        let source = try file(id)
        let target = trashFolder.appendingPathComponent(id)
        guard Self.plainFile(target) == nil else { throw LibraryError.conflict("\(id) is already in the trash; restore or empty it first") }
        try move(source, to: target)
        _ = items()
    }

    /// Moves a photo back from the trash, refusing to replace a photo of the same name.
    func restore(_ id: String) throws {
        let source = try file(id, inTrash: true)
        let target = folder.appendingPathComponent(id)
        var status = stat()
        guard lstat(target.path, &status) != 0 else { throw LibraryError.conflict("a photo named \(id) is in the library already") }
        try move(source, to: target)
    }

    private func move(_ source: URL, to target: URL) throws {
        // rename(2) within one folder tree: atomic, never a copy and delete.
        guard rename(source.path, target.path) == 0 else {
            throw MatteboxError("cannot move \(source.path) to \(target.path): \(String(cString: strerror(errno)))")
        }
    }
}

/// What a library request can go wrong with, as the client sees it.
enum LibraryError: Error, CustomStringConvertible {
    case notFound(String)
    case unreadable(String, String)
    case noAuxiliary(String, String)
    case conflict(String)

    var description: String {
        switch self {
        case .notFound(let id): return "no photo \(id) in the library"
        case .unreadable(let id, let why): return "\(id) cannot be read: \(why)"
        case .noAuxiliary(let id, let role): return "\(id) has no \(role) image"
        case .conflict(let why): return why
        }
    }
}
