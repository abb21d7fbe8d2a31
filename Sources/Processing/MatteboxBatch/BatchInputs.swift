import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxPairedMedia
import MatteboxPipeline
import MatteboxRuntime

/// One photo of a batch and where its results go: `stem` is the output path
/// relative to the output folder, without extension (`trip/day1/IMG_0001`).
package struct BatchInput: Sendable, Equatable {
    package var url: URL
    package var stem: String
    /// Its sidecars (`NAME.depth.png` beside it), found once when the inputs
    /// were collected and handed to the worker with the photo.
    package var sidecars: [ImageRole: URL] = [:]
    /// The movie beside it with its name, which is carried to the output
    /// when it is the photo's Live Photo movie (`LivePhotoCompanion`).
    package var movie: URL?

    package init(url: URL, stem: String, sidecars: [ImageRole: URL] = [:], movie: URL? = nil) {
        self.url = url
        self.stem = stem
        self.sidecars = sidecars
        self.movie = movie
    }
}

/// Turns the paths given to `mattebox process` into photos: folders are walked
/// recursively (hidden entries and the output folder skipped, image extensions
/// only) and their tree is mirrored under the output folder; files named
/// directly are always tried, so a bad one is reported rather than ignored.
/// The order is stable (sorted within each folder), so shards and resumed runs
/// agree on every photo's output name.
package enum BatchInputs {
    package static var imageExtensions: Set<String> { ImageContainers.photoExtensions }

    /// Fails before any work when a photo's output (in the format asked for)
    /// would be one of the run's inputs: `process photo.jpg -o .`.
    package static func refuseOutputsOverInputs(_ inputs: [BatchInput], options: BatchOptions) throws {
        let formats = PhotoWriter.possibleFormats(asked: options.format)
        let clashes = inputs.flatMap { input in
            formats.compactMap { format -> String? in
                let output = PhotoWriter.destination(in: options.outputDirectory, stem: input.stem, format: format)
                guard let identity = FileIdentity(output), options.safety.inputs.contains(identity) else { return nil }
                return output.path
            }
        }
        guard let first = clashes.first else { return }
        throw MatteboxError(
            "\(clashes.count == 1 ? "an output" : "\(clashes.count) outputs") would replace an input (\(first)); "
                + "an output never replaces an input, so nothing was written",
            hint: "choose another output folder with -o, or another output name with --suffix (e.g. --suffix -edited)",
            commandLineMistake: true)
    }

    /// The photos among `paths`; with `sidecars`, each gets the sidecars
    /// beside it (`NAME.depth.png` beside `NAME.jpg`) and the movie with its
    /// name, and files that are sidecars are left out as photos. Each folder
    /// is listed once. Files found in folders that `earlierOutput` says an
    /// earlier run wrote (the output folder's manifest) are left out, so a run
    /// beside the originals can be repeated; files named directly are kept.
    package static func collect(
        _ paths: [String], outputDirectory: URL, sidecars: Bool = true, earlierOutput: (URL) -> Bool = { _ in false }
    ) -> [BatchInput] {
        let photos = collectFiles(paths, outputDirectory: outputDirectory, earlierOutput: earlierOutput)
        var folders: [URL: Sidecars] = [:]
        return photos.compactMap { input in
            let folder = input.url.deletingLastPathComponent()
            let listing = folders[folder] ?? Sidecars(folder: folder)
            folders[folder] = listing
            var found = input
            found.movie = listing.movieByPhoto[input.url.lastPathComponent]
            guard sidecars else { return found }
            guard !listing.sidecarNames.contains(input.url.lastPathComponent) else { return nil }
            found.sidecars = listing.of(input.url.lastPathComponent)
            return found
        }
    }

    private static func collectFiles(_ paths: [String], outputDirectory: URL, earlierOutput: (URL) -> Bool) -> [BatchInput] {
        let output = outputDirectory.standardizedFileURL.path
        var found: [(url: URL, relative: String)] = []
        for path in paths {
            let url = URL(fileURLWithPath: path).standardizedFileURL
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue {
                found += walk(url, skipping: output).filter { !earlierOutput($0.url) }
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
            let base = (item.relative as NSString).deletingPathExtension
            let stem = OutputNames.free(base, limit: .max) { used.contains($0) }!
            used.insert(stem)
            return BatchInput(url: item.url, stem: stem)
        }
    }
}
