import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxImageIO
import MatteboxImageOps
import MatteboxMovie
import MatteboxPairedMedia
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
///
/// Movies are listed too (recordings), except a Live Photo's movie, which
/// belongs to the still with its name (`IMG.mov` beside `IMG.heic` or
/// `IMG.MP.jpg`): it is shown, trashed and restored with it.
package final class PhotoLibrary: Sendable {
    /// One photo as the page lists it.
    package struct Item: Codable, Sendable, Equatable {
        package var id: String
        package var bytes: Int64
        package var modified: Date
        /// When the library first saw the file (its modification time then): kept when the file is
        /// rewritten (a capture's final replacing its proxy), so photos stay in the order they came.
        package var added: Date?
        package var width: Int?
        package var height: Int?
        /// Auxiliary images the viewer can lay over the photo (depth, mattes).
        package var auxiliary: [String]
        /// Where a phone stored an auxiliary image outside HEIF, by role ("iPhone JPEG disparity (MPF image 2)").
        package var sources: [String: String]?
        package var problem: String?
        /// "photo" or "movie".
        package var kind = Kind.photo
        /// A movie's length in seconds.
        package var duration: Double?
        /// A Motion Photo: the movie is inside the file.
        package var motionPhoto: Bool?
        /// The Live Photo movie beside the still (its file name), found at each listing.
        package var livePhotoMovie: String?
        /// A capture's proxy whose final is still being made (the camera app says so; the library cannot know).
        package var processing: Bool?

        package enum Kind: String, Codable, Sendable { case photo, movie }
    }

    private struct Index: Codable {
        var items: [String: Item] = [:]
    }

    package let folder: URL
    private let stateFolder: URL
    private let trashFolder: URL
    private let index = Mutex(Index())
    package static var photoExtensions: Set<String> { ImageContainers.photoExtensions }

    package init(folder: URL) throws {
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
    package func items() -> [Item] { list(in: folder, indexed: true) }

    /// The photos in the trash, newest first.
    package func trashed() -> [Item] { list(in: trashFolder, indexed: false) }

    private func list(in directory: URL, indexed: Bool) -> [Item] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let movies = LivePhotoMovies(names: names)
        let paired = Set(names.compactMap { Self.isPhotoName($0) ? movies.movie(for: $0) : nil })
        var known = index.withLock { $0.items }
        var changed = false
        var items: [Item] = []
        for name in names where Self.isLibraryName(name) && !paired.contains(name) {
            guard let info = Self.plainFile(directory.appendingPathComponent(name)) else { continue }
            if var cached = known[name], cached.bytes == info.bytes, cached.modified == info.modified {
                cached.livePhotoMovie = movies.movie(for: name)
                items.append(cached)
                continue
            }
            var item = Self.describe(directory.appendingPathComponent(name), id: name, bytes: info.bytes, modified: info.modified)
            item.added = known[name]?.added ?? known[name]?.modified ?? info.modified
            item.livePhotoMovie = movies.movie(for: name)
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
        // Newest first by when each came, not by its last write: a burst's finals, written one by one
        // after their proxies, keep the order of the presses.
        return items.sorted { first, second in
            let (a, b) = (first.added ?? first.modified, second.added ?? second.modified)
            return a != b ? a > b : first.id > second.id
        }
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
            if LivePhotoMovies.isMovieName(id) {
                item.kind = .movie
                // Its length from its boxes; the media data stays on disk.
                item.duration = try MovieInspector.inspect(at: url).duration
                return item
            }
            // A HEIF says what it holds in its boxes: no need to decode its pixels to list it.
            if HEIFReader.recognizes(header(of: url)) {
                let (summary, motionPhoto) = try HEIFInspector.inspectWithMotionPhoto(at: url)
                item.width = summary.primary.width
                item.height = summary.primary.height
                item.auxiliary = summary.auxiliary.map(\.role).filter { $0 != ImageRole.alpha.rawValue }.sorted()
                item.motionPhoto = motionPhoto != nil ? true : nil
                return item
            }
            let photo = try ImageDecoder.decodePhoto(at: url).displayedUpright()
            item.width = photo.primary.width
            item.height = photo.primary.height
            item.auxiliary = photo.auxiliary.keys.filter { $0 != .thumbnail && $0 != .alpha }.map(\.rawValue).sorted()
            let sources = photo.metadata.auxiliaryInfo.compactMapValues(\.source)
            item.sources = sources.isEmpty ? nil : Dictionary(uniqueKeysWithValues: sources.map { ($0.key.rawValue, $0.value) })
            item.motionPhoto = photo.metadata.motionPhotoMovie != nil ? true : nil
        } catch {
            item.problem = "\(error)"
        }
        return item
    }

    // MARK: Files

    package static func isPhotoName(_ name: String) -> Bool {
        !name.hasPrefix(".") && photoExtensions.contains((name as NSString).pathExtension.lowercased())
    }

    package static func isLibraryName(_ name: String) -> Bool { isPhotoName(name) || LivePhotoMovies.isMovieName(name) }

    /// A regular file's size and modification time; nil for anything else (links, folders, FIFOs).
    private static func plainFile(_ url: URL) -> (bytes: Int64, modified: Date)? {
        var status = stat()
        guard lstat(url.path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        let modified = Date(timeIntervalSince1970: Double(status.st_mtim.tv_sec) + Double(status.st_mtim.tv_nsec) / 1e9)
        return (Int64(status.st_size), modified)
    }

    /// The file behind a library id, or an error a client may see (the id is never trusted).
    package func file(_ id: String, inTrash: Bool = false) throws -> URL {
        guard Self.isLibraryName(id), !id.contains("/"), !id.contains("\0"), id != "..", id.count <= 255 else {
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

    package func photo(_ id: String) throws -> Photo {
        guard Self.isPhotoName(id) else { throw LibraryError.notFound(id) }
        let url = try file(id)
        do { return try ImageDecoder.decodePhoto(at: url) } catch { throw LibraryError.unreadable(id, "\(error)") }
    }

    /// A JPEG thumbnail, made once per version of the file and kept in `.mattebox/thumbnails`.
    package func thumbnail(_ id: String) throws -> Data {
        guard Self.isPhotoName(id) else { throw LibraryError.notFound(id) }
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
    package func overlay(_ id: String, role: String) throws -> Data {
        let photo = try self.photo(id)
        if role == "primary" { return try Self.viewerPicture(photo, longSide: 1024) }
        guard photo.auxiliary[ImageRole(rawValue: role)] != nil else { throw LibraryError.noAuxiliary(id, role) }
        return try ImageEncoder.encode(try ContactSheet.overlay(photo, role: ImageRole(rawValue: role)), as: .png)
    }

    /// The viewer's picture: upright, `longSide` px at most, as JPEG; a photo with an HDR gain map
    /// (Apple's, or one kept in ISO 21496-1's form) as Ultra HDR (the map turned and scaled alike, its
    /// headroom or metadata stated), so a browser that shows
    /// HDR (Chrome on an HDR screen) shows it as the phone does. No EXIF or XMP goes with it.
    static func viewerPicture(_ photo: Photo, longSide: Int) throws -> Data {
        let picture = try ContactSheet.thumbnail(photo, longSide: longSide, storedThumbnail: false)
        // Apple's form with the headroom known, else one kept in ISO 21496-1's form with its metadata.
        let role: ImageRole
        if photo.auxiliary[.appleHDRGainMap] != nil, photo.gainMapHeadroomStops != nil {
            role = .appleHDRGainMap
        } else if photo.auxiliary[.isoGainMap] != nil, photo.metadata.gainMap.iso21496 != nil {
            role = .isoGainMap
        } else {
            return try ImageEncoder.encode(picture, as: .jpeg, quality: 88)
        }
        // The map alone, turned as the primary is shown.
        var turned = Photo(primary: photo.auxiliary[role]!)
        turned.metadata.orientation = photo.metadata.orientation
        let upright = try turned.displayedUpright().primary
        let scale = Double(picture.width) / Double(photo.metadata.orientation.swapsDimensions ? photo.primary.height : photo.primary.width)
        let width = max(1, Int((Double(upright.width) * scale).rounded())), height = max(1, Int((Double(upright.height) * scale).rounded()))
        var preview = Photo(primary: picture)
        preview.setAuxiliary(try ImageGeometry.resized(upright, width: width, height: height), for: role)
        preview.metadata.auxiliaryInfo[role] = AuxiliaryImageInfo(source: "the library photo's gain map")
        preview.metadata.gainMap = GainMapMeaning(headroomStops: photo.gainMapHeadroomStops, iso21496: photo.metadata.gainMap.iso21496)
        return try ImageEncoder.encode(preview, as: .jpeg, quality: 88)
    }

    /// Where a library entry's movie is, as the viewer plays it.
    package enum Movie {
        /// A movie file: the entry itself, or a still's Live Photo movie beside it.
        case file(URL, type: String)
        /// A Motion Photo's movie: these bytes of the still's file, streamed from disk.
        case part(of: URL, Range<Int>)
        /// A Motion Photo's movie that only decoding the still found (a layout the locator does not know).
        case embedded(Data)
    }

    package func movie(_ id: String) throws -> Movie {
        let url = try file(id)
        let movie = LivePhotoMovies.isMovieName(id) ? url : LivePhotoMovies(folder: folder).movie(for: id).map { folder.appendingPathComponent($0) }
        if let movie, Self.plainFile(movie) != nil {
            return .file(movie, type: movie.pathExtension.lowercased() == "mov" ? "video/quicktime" : "video/mp4")
        }
        if let range = EmbeddedMovieLocation.range(in: url) { return .part(of: url, range) }
        guard let embedded = try photo(id).metadata.motionPhotoMovie else { throw LibraryError.noMovie(id) }
        return .embedded(embedded)
    }

    // MARK: Trash

    /// Moves a photo (with its Live Photo movie) or a movie to the trash (never deletes it).
    package func trash(_ id: String) throws {
        try moveWithMovie(id, from: folder, to: trashFolder, clash: "\(id) is already in the trash; restore or empty it first")
        _ = items()
    }

    /// Moves a photo (with its Live Photo movie) back from the trash, refusing to replace a file of the same name.
    package func restore(_ id: String) throws {
        try moveWithMovie(id, from: trashFolder, to: folder, clash: "a photo named \(id) is in the library already")
    }

    /// Every name is checked before anything moves, so a clash leaves the pair together.
    private func moveWithMovie(_ id: String, from source: URL, to target: URL, clash: String) throws {
        _ = try file(id, inTrash: source == trashFolder)
        let moving = [id] + (Self.isPhotoName(id) ? LivePhotoMovies(folder: source).movie(for: id).map { [$0] } ?? [] : [])
        for name in moving {
            var status = stat()
            guard lstat(target.appendingPathComponent(name).path, &status) != 0 else {
                throw LibraryError.conflict(name == id ? clash : "\(name), the movie of \(id), is there already")
            }
        }
        for name in moving { try move(source.appendingPathComponent(name), to: target.appendingPathComponent(name)) }
    }

    private func move(_ source: URL, to target: URL) throws {
        // rename(2) within one folder tree: atomic, never a copy and delete.
        guard rename(source.path, target.path) == 0 else {
            throw MatteboxError("cannot move \(source.path) to \(target.path): \(String(cString: strerror(errno)))")
        }
    }
}
