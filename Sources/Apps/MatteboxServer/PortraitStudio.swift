import Dispatch
import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxImageOps
import MatteboxLibrary
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxRuntime
import Synchronization

/// The viewer's Portrait control, Photos' Depth Control in the browser: a
/// photo's portrait effect re-rendered at screen size while the f-number
/// slider moves or the user taps to refocus (the photo is decoded and reduced
/// once, then kept for the next render), and "Save a copy", which renders at
/// full resolution into the library beside the original (never over it).
/// Both run the built-in portrait-effect plugin, as `mattebox render` does.
final class PortraitStudio: Sendable {
    /// What the page sends: nil keeps the plugin's default.
    typealias Settings = PortraitEffectPipeline.Settings

    static let pluginID = PortraitEffectPipeline.pluginID
    private let registry: PluginRegistry
    private let library: PhotoLibrary
    /// The last photo rendered at screen size, reduced: (id, file stamp, long side, photo).
    private let reduced = Mutex<(key: String, photo: Photo)?>(nil)

    init(registry: PluginRegistry, library: PhotoLibrary) {
        self.registry = registry
        self.library = library
    }

    var isAvailable: Bool { registry.plugin(Self.pluginID) != nil }

    /// The plugin's text parameters the app takes as they are: they hold a value, never a file.
    /// Every other text parameter (a cascade folder, a model file) may name a file on the server,
    /// so a request cannot set it; numbers, booleans and choices are checked by the descriptor.
    static let textParameters: Set<String> = ["focus", "background-colour"]
    /// The text parameter that names an image file: from the app, a library photo's id.
    static let libraryImageParameter = "background-image"

    /// The settings a request asks for, as the plugin gets them: `background-image` names a
    /// photo of the library (its id), resolved to its file; a parameter that could name a file
    /// is refused by name, before anything looks at the disk, so a refusal tells nothing of it.
    func settings(fromRequest values: [String: String]) throws -> Settings {
        let parameters = registry.plugin(Self.pluginID)?.description.parameters ?? []
        var settings: [String: String] = [:]
        for (key, value) in values {
            if key == Self.libraryImageParameter {
                guard !value.isEmpty else { continue }
                do { settings[key] = try library.file(value).path } catch {
                    throw RefusedSetting("\(key): no photo \(value.debugDescription) in the library (the app takes a library photo's id, never a path)")
                }
            } else if let parameter = parameters.first(where: { $0.key == key }), parameter.type == .string,
                !Self.textParameters.contains(key)
            {
                throw RefusedSetting("\(key) cannot be set from the app: it may name a file on the server (set it in the pipeline file)")
            } else {
                settings[key] = value
            }
        }
        // The slider's aperture is the strength asked for (a photo's own Lens Blur strength is the start).
        if settings["aperture"] != nil, settings["strength"] == nil { settings["strength"] = "aperture" }
        return Settings(settings)
    }

    /// A request's setting the app does not take (400, the words say which and why).
    struct RefusedSetting: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// A preview: the JPEG, and the f-number and focus ("x,y" or "subject") the effect used (the
    /// photo's own when the request left them to it), so the control can start there.
    struct Preview {
        var jpeg: Data
        var aperture: String?
        var focus: String?
    }

    /// The photo rendered with `settings`, upright, `longSide` px at most, as JPEG.
    func preview(_ id: String, settings: Settings, longSide: Int) throws -> Preview {
        let runner = try self.runner(settings)
        var photo = try reducedPhoto(id, longSide: longSide).deepCopy()
        try runChecked(runner, on: &photo)
        let jpeg = try ImageEncoder.encode(try ContactSheet.thumbnail(photo, longSide: longSide, storedThumbnail: false), as: .jpeg, quality: 85)
        return Preview(
            jpeg: jpeg, aperture: photo.metadata.shared[PortraitRendered.apertureName], focus: photo.metadata.shared[PortraitRendered.focusName])
    }

    /// Renders the whole photo and writes it into the library as a new file
    /// (`NAME-portrait.jpg`, or `-portrait-2`, ...); returns its id.
    func saveCopy(_ id: String, settings: Settings) throws -> String {
        let runner = try self.runner(settings)
        var photo = try library.photo(id)
        try checkSources(of: photo)
        let stem = (id as NSString).deletingPathExtension
        let taken = Set(((try? FileManager.default.contentsOfDirectory(atPath: library.folder.path)) ?? [])
            .map { ($0 as NSString).deletingPathExtension })
        let free = OutputNames.free("\(stem)-portrait", limit: 999) { taken.contains($0) }
        guard let free else { throw MatteboxError("no free name for a portrait copy of \(id)") }
        let written = try PhotoWriter(directory: library.folder, format: nil).run(&photo, through: runner, stem: free, encodeAhead: false).written
        return written.output.lastPathComponent
    }

    private func runChecked(_ runner: PipelineRunner, on photo: inout Photo) throws {
        try checkSources(of: photo)
        _ = try runner.run(&photo)
    }

    private func checkSources(of photo: Photo) throws {
        guard ImageRole.portraitEffectSources.contains(where: { photo.auxiliary[$0] != nil }) else {
            throw MatteboxError("this photo has no portrait matte and no depth to render a portrait effect from")
        }
    }

    private func runner(_ settings: Settings) throws -> PipelineRunner {
        guard isAvailable else { throw MatteboxError("the portrait-effect plugin is not installed") }
        // A bad setting (aperture or focus out of range, an unknown background) is the plugin's descriptor's
        // to refuse, by name, as it is for render and pipeline files.
        let source = PortraitEffectPipeline.source(settings, matte: .none, path: "(portrait control)") { $0 }
        return try PipelineRunner(pipeline: source.validate(registry: registry), registry: registry)
    }

    /// The photo with its primary reduced to `longSide` and its auxiliary
    /// images no larger than it, decoded once per version of the file.
    private func reducedPhoto(_ id: String, longSide: Int) throws -> Photo {
        let url = try library.file(id)
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        let stamp = "\(id)|\((attributes?[.size] as? NSNumber)?.intValue ?? 0)|\((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)|\(longSide)"
        if let cached = reduced.withLock({ $0 }), cached.key == stamp { return cached.photo }
        var photo = try library.photo(id)
        let primary = photo.primary
        let scale = min(1, Double(longSide) / Double(max(primary.width, primary.height)))
        if scale < 1 {
            let width = max(1, Int((Double(primary.width) * scale).rounded()))
            let height = max(1, Int((Double(primary.height) * scale).rounded()))
            photo.primary = try ImageGeometry.resized(primary, width: width, height: height)
            for (role, image) in photo.auxiliary where image.width * image.height > width * height {
                photo.setAuxiliary(try ImageGeometry.resized(image, width: width, height: height), for: role)
            }
        }
        reduced.withLock { $0 = (stamp, photo) }
        return photo
    }
}
