import Foundation
import MatteboxCore
import MatteboxRuntime

/// Auxiliary images kept beside a photo as files: `NAME.<role>.png` (or
/// `.pfm`, `.tif`, `.tiff`) next to `NAME.jpg` is that photo's `<role>` image,
/// as `--aux ROLE=FILE` would attach it. It is the naming `--aux-png` writes,
/// so outputs feed back in; a sidecar is never a photo of its own.
public enum Sidecars {
    public static let extensions: Set<String> = ["png", "pfm", "tif", "tiff"]

    /// The role a file names when it is a sidecar of a photo in the same
    /// folder (`siblings` are the folder's file names), else nil.
    public static func role(of url: URL, siblings: Set<String>) -> (photo: String, role: ImageRole)? {
        let name = url.lastPathComponent
        guard extensions.contains(url.pathExtension.lowercased()) else { return nil }
        let parts = (name as NSString).deletingPathExtension
        // "IMG_1.depth" or "aloeL.org.mattebox.stereo-right": try each dot as the split.
        var index = parts.firstIndex(of: ".")
        while let dot = index {
            let stem = String(parts[..<dot]), role = ImageRole(String(parts[parts.index(after: dot)...]))
            if role != .primary, role.isValidName, let photo = photoNamed(stem, in: siblings, except: name) {
                return (photo, role)
            }
            index = parts[parts.index(after: dot)...].firstIndex(of: ".")
        }
        return nil
    }

    /// Every sidecar beside `photo`, by role.
    public static func find(for photo: URL) -> [ImageRole: URL] {
        let folder = photo.deletingLastPathComponent()
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [:] }
        let siblings = Set(names)
        var found: [ImageRole: URL] = [:]
        for name in names.sorted() {
            let url = folder.appendingPathComponent(name)
            if let match = role(of: url, siblings: siblings), match.photo == photo.lastPathComponent {
                found[match.role] = url
            }
        }
        return found
    }

    /// Reads a sidecar as `--aux` does; a 16-bit PNG that states its scale
    /// (`--aux-png` wrote float values that way) comes back as float, except
    /// depth, which stays in 16-bit millimetres.
    public static func read(_ url: URL, role: ImageRole) throws -> PixelImage {
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

    /// The photo file in `siblings` whose name without extension is `stem` (not a sidecar itself).
    private static func photoNamed(_ stem: String, in siblings: Set<String>, except name: String) -> String? {
        siblings.sorted().first { candidate in
            candidate != name && (candidate as NSString).deletingPathExtension == stem
                && photoExtensions.contains((candidate as NSString).pathExtension.lowercased())
        }
    }

    static let photoExtensions: Set<String> = ["jpg", "jpeg", "jpe", "png", "tif", "tiff", "webp", "heic", "heif", "hif", "avif"]
}
