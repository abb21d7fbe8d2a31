import Foundation
import MatteboxCore

/// One photo of a batch and where its results go: `stem` is the output path
/// relative to the output folder, without extension (`trip/day1/IMG_0001`).
public struct BatchInput: Sendable, Equatable {
    public var url: URL
    public var stem: String

    public init(url: URL, stem: String) {
        self.url = url
        self.stem = stem
    }
}

/// Turns the paths given to `mattebox process` into photos: folders are walked
/// recursively (hidden entries and the output folder skipped, image extensions
/// only) and their tree is mirrored under the output folder; files named
/// directly are always tried, so a bad one is reported rather than ignored.
/// The order is stable (sorted within each folder), so shards and resumed runs
/// agree on every photo's output name.
public enum BatchInputs {
    public static let imageExtensions: Set<String> = [
        "jpg", "jpeg", "jpe", "png", "tif", "tiff", "webp", "heic", "heif", "hif", "avif",
    ]

    public static func collect(_ paths: [String], outputDirectory: URL) -> [BatchInput] {
        let output = outputDirectory.standardizedFileURL.path
        var found: [(url: URL, relative: String)] = []
        for path in paths {
            let url = URL(fileURLWithPath: path).standardizedFileURL
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
                found += walk(url, skipping: output)
            } else {
                found.append((url, url.lastPathComponent))
            }
        }
        return uniqueStems(found)
    }

    private static func walk(_ root: URL, skipping output: String) -> [(url: URL, relative: String)] {
        guard let walker = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isDirectoryKey, .isRegularFileKey], options: [.skipsHiddenFiles])
        else { return [] }
        let rootPath = root.path.hasSuffix("/") ? root.path : root.path + "/"
        var files: [(URL, String)] = []
        for case let url as URL in walker {
            let path = url.standardizedFileURL.path
            let values = try? url.resourceValues(forKeys: [.isDirectoryKey, .isRegularFileKey])
            if values?.isDirectory == true {
                if path == output { walker.skipDescendants() }
                continue
            }
            guard values?.isRegularFile == true, imageExtensions.contains(url.pathExtension.lowercased()),
                path.hasPrefix(rootPath)
            else { continue }
            files.append((url, String(path.dropFirst(rootPath.count))))
        }
        return files.sorted { $0.1 < $1.1 }
    }

    /// Output stems without extension, made unique with -2, -3, ... when two
    /// inputs would write the same name.
    private static func uniqueStems(_ found: [(url: URL, relative: String)]) -> [BatchInput] {
        var used = Set<String>()
        return found.map { item in
            let relative = item.relative as NSString
            let base = relative.deletingPathExtension
            var stem = base
            var counter = 2
            while !used.insert(stem).inserted {
                stem = "\(base)-\(counter)"
                counter += 1
            }
            return BatchInput(url: item.url, stem: stem)
        }
    }
}
