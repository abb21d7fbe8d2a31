import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxRuntime

/// Auxiliary images kept beside a photo as files: `NAME.<role>.png` (or
/// `.pfm`, `.tif`, `.tiff`) next to `NAME.jpg` is that photo's `<role>` image,
/// as `--aux ROLE=FILE` would attach it. It is the naming `--aux-png` writes,
/// so outputs feed back in; a sidecar is never a photo of its own.
///
/// A `Sidecars` value is one folder's listing, read once: finding the
/// sidecars of every photo in it costs a dictionary lookup per file, not a
/// listing per photo.
package struct Sidecars: Sendable {
    package static let extensions: Set<String> = ["png", "pfm", "tif", "tiff"]

    /// Every file that is a sidecar, by the name of the photo it belongs to.
    package private(set) var byPhoto: [String: [ImageRole: URL]] = [:]
    /// The names of the files that are sidecars (not photos).
    package private(set) var sidecarNames: Set<String> = []
    /// The movie beside each photo with its name (`LivePhotoMovies`), by the photo's name.
    package private(set) var movieByPhoto: [String: URL] = [:]

    /// The sidecars in `folder`.
    package init(folder: URL) {
        self.init(folder: folder, names: (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
    }

    init(folder: URL, names: [String]) {
        // Photo names by their name without extension: "IMG_1" -> "IMG_1.JPG".
        var photos: [String: String] = [:]
        for name in names.sorted() where ImageContainers.photoExtensions.contains((name as NSString).pathExtension.lowercased()) {
            let stem = (name as NSString).deletingPathExtension
            if photos[stem] == nil { photos[stem] = name }
        }
        let movies = LivePhotoMovies(names: names)
        for photo in photos.values {
            movieByPhoto[photo] = movies.movie(for: photo).map { folder.appendingPathComponent($0) }
        }
        for name in names where Self.extensions.contains((name as NSString).pathExtension.lowercased()) {
            let parts = (name as NSString).deletingPathExtension
            // "IMG_1.depth" or "aloeL.org.mattebox.stereo-right": try each dot as the split.
            var index = parts.firstIndex(of: ".")
            while let dot = index {
                let stem = String(parts[..<dot]), role = ImageRole(String(parts[parts.index(after: dot)...]))
                if role != .primary, role.isValidName, let photo = photos[stem], photo != name {
                    byPhoto[photo, default: [:]][role] = folder.appendingPathComponent(name)
                    sidecarNames.insert(name)
                    break
                }
                index = parts[parts.index(after: dot)...].firstIndex(of: ".")
            }
        }
    }

    /// The sidecars of the photo named `photo` in this folder, by role.
    package func of(_ photo: String) -> [ImageRole: URL] { byPhoto[photo] ?? [:] }

    /// Reads a sidecar as `--aux` does; a 16-bit PNG that states its scale
    /// (`--aux-png` wrote float values that way) comes back as float, except
    /// depth, which stays in 16-bit millimetres.
    package static func read(_ url: URL, role: ImageRole) throws -> PixelImage {
        let image = try ImageDecoder.decodeAuxiliaryImage(at: url)
        guard role != .depth, image.format == .uint16, url.pathExtension.lowercased() == "png",
            let handle = FileHandle(forReadingAtPath: url.path)
        else { return image }
        defer { try? handle.close() }
        let head = [UInt8]((try? handle.read(upToCount: 4096)) ?? Data())
        guard let text = PNGChunk.text(ScaledPNG.scaleKey(role.rawValue), in: head), let scale = Double(text), scale > 0
        else { return image }
        let float = PixelImage(width: image.width, height: image.height, channels: 1, format: .float32)
        let source = image.data.assumingMemoryBound(to: UInt16.self), target = float.data.assumingMemoryBound(to: Float.self)
        for index in 0..<(image.width * image.height) { target[index] = Float(Double(source[index]) / scale) }
        return float
    }
}
