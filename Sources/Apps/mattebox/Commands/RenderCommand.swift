import ArgumentParser
import Foundation
import MatteboxBatch
import MatteboxImageIO
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxRuntime

/// `mattebox render`: Photos' Depth Control on the command line. Renders a
/// portrait effect from the depth and mattes a photo holds (an iPhone
/// Portrait HEIC, a photo `process` gave mattes), making the portrait matte
/// first when the photo has none. It is `process` with a pipeline built from
/// its options, so batches, `--resume`, `-j`, `--json` and `--dry-run` work
/// the same, and originals are never written.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render a portrait effect: depth of field set after capture, a new background, or a cut-out.",
        discussion: """
            The blur follows the photo's own depth (an iPhone Portrait photo's disparity, a stereo \
            pair's), made edge-true first; a portrait matte keeps the person whole and sharp. With a \
            matte and no depth the person stands in front of a far background, the ground at their \
            feet receding. --matte auto (the default) makes a portrait matte first for a photo that \
            has none, when a face is found: MODNet when `mattebox models install modnet` has run, \
            else the classical cut-out (for a photo with depth only MODNet; the depth outlines the \
            subject as well as the classical cut-out). With no face, the photo's salient object (a \
            glass, a pet) is the subject when `mattebox models install u2netp` has run, it stands out \
            and, with depth, lies nearer than the rest. A new background or a cut-out takes the matte, \
            or with depth alone what lies at or in front of the focal plane. A photo with neither \
            depth nor matte fails, saying so: there is nothing to render from. \
            --background-colour or --background-image alone chooses that background. The rendered photo keeps the original's EXIF and colour \
            profile; its depth and mattes are left out (they describe the photo as shot) unless \
            --keep-auxiliary. Without --format a render is JPEG, or HEIC where JPEG would drop \
            something the render keeps (a HEIC input's other images such as its gain map, a cut-out's \
            alpha, depth and mattes with --keep-auxiliary). Examples:
              mattebox render lens-blur.jpg -o out   (the phone's own focus and strength, from its GFocus)
              mattebox render IMG_0001.HEIC -o out --aperture 2.8
              mattebox render IMG_0001.HEIC -o out --focus 0.3,0.6   (refocus)
              mattebox render portrait.jpg -o out --background colour --background-colour '#1e3a5f'
              mattebox render portrait.jpg -o out --background transparent --format png
            """)

    @OptionGroup var verbosity: Verbosity
    @Argument(help: "Photos, or folders to walk for photos; - reads one photo from standard input.", completion: .file()) var photos: [String]
    @OptionGroup var outputs: BatchOutputOptions
    // The effect's own parameters: their help, defaults and checks are the plugin's descriptor's
    // (`mattebox plugins inspect portrait-effect`), the contract pipeline files, --set and the app's Portrait control use.
    @Option(help: EffectParameterHelp.help("aperture", valueName: "f-number")) var aperture: String?
    @Option(help: EffectParameterHelp.help("focus", valueName: "subject|x,y")) var focus: String?
    @Option(help: EffectParameterHelp.help("background", valueName: "mode")) var background: String?
    @Option(help: EffectParameterHelp.help("background-colour", valueName: "#RRGGBB")) var backgroundColour: String?
    @Option(help: EffectParameterHelp.help("background-image", valueName: "path")) var backgroundImage: String?
    @Option(help: EffectParameterHelp.help("highlights", valueName: "0-1")) var highlights: String?
    @Option(help: "auto: make a portrait matte first for a photo that has none (see above); none: only the photo's own matte and depth.")
    var matte: MatteChoice = .auto
    @Flag(help: EffectParameterHelp.help("keep-auxiliary")) var keepAuxiliary = false

    /// `--matte`: whether a matte is made first.
    enum MatteChoice: String, ExpressibleByArgument, CaseIterable { case auto, none }

    /// The background mode: as given, or the one `--background-colour` or `--background-image` alone implies.
    var backgroundMode: String? {
        guard background == nil else { return background }
        switch (backgroundColour != nil, backgroundImage != nil) {
        case (true, false): return "colour"
        case (false, true): return "image"
        default: return nil
        }
    }

    /// A background option that the mode does not use is a mistake, never silently ignored.
    func checkBackgroundOptions() throws {
        if background == nil, backgroundColour != nil, backgroundImage != nil {
            throw ValidationError("--background-colour and --background-image name two backgrounds: choose one (or say which with --background)")
        }
        if let mode = backgroundMode {
            if backgroundColour != nil, mode != "colour" {
                throw ValidationError("--background-colour is for --background colour, not --background \(mode)")
            }
            if backgroundImage != nil, mode != "image" {
                throw ValidationError("--background-image is for --background image, not --background \(mode)")
            }
        }
    }

    /// The effect's parameters as the options set them (by the plugin's names); unset ones keep its defaults.
    var settings: PortraitEffectPipeline.Settings {
        var values: [String: String] = [:]
        values["aperture"] = aperture
        // An aperture given is the strength asked for; without one a photo that records the phone's blur gets it.
        if aperture != nil { values["strength"] = "aperture" }
        values["focus"] = focus
        values["background"] = backgroundMode
        values["background-colour"] = backgroundColour
        // Workers may run elsewhere in the tree: the image is named by its full path.
        values["background-image"] = backgroundImage.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        values["highlights"] = highlights
        if keepAuxiliary { values["keep-auxiliary"] = "true" }
        return PortraitEffectPipeline.Settings(values)
    }

    /// The options checked by the plugin itself before any photo is read: its descriptor (types,
    /// ranges, choices) and its own checks (a colour's digits, the background image), so a mistake
    /// is a command-line one (exit 64) and the CLI takes exactly what the app takes.
    func validate() throws {
        try checkBackgroundOptions()
        try asCommandLineMistake { try request.validate() }
        let registry = EffectParameterHelp.registry
        do {
            let parsed = try outputs.settings.map(ParameterSetting.init(parsing:))
            var whole = pipelineSource
            whole.settings += parsed
            _ = try whole.validate(registry: registry)
            // The effect made once here, so its own checks (a colour's digits, the background image) run now.
            var effect = PortraitEffectPipeline.source(settings, matte: .none, path: "render") { "--\($0)" }
            effect.settings += parsed.filter { $0.matches(PortraitEffectPipeline.pluginID) }
            _ = try PipelineRunner(pipeline: effect.validate(registry: registry), registry: registry)
        } catch let error as PipelineError {
            throw ValidationError(error.issues.map(\.message).joined(separator: "\n"))
        } catch {
            throw ValidationError("\(error)")
        }
    }

    /// The pipeline the options describe: a portrait matte when the photo has none, then the effect.
    var pipelineSource: PipelineSource {
        // A malformed --set is refused by validate(); here it only informs the matte stage.
        let alsoSet = (try? outputs.settings.map(ParameterSetting.init(parsing:))) ?? []
        return PortraitEffectPipeline.source(settings, matte: matte == .auto ? .auto : .none, path: "render", alsoSet: alsoSet) { "--\($0)" }
    }

    /// The batch the options describe; `process` runs the same path.
    var request: BatchRequest {
        var request = BatchRequest(photos: photos, output: outputs.output, pipeline: .built(pipelineSource))
        outputs.apply(to: &request)
        request.registry = EffectParameterHelp.registry
        request.quiet = verbosity.quiet
        return request
    }

    func run() throws {
        if background == nil, let mode = backgroundMode, !verbosity.quiet, !outputs.json {
            let given = mode == "colour" ? "--background-colour" : "--background-image"
            FileHandle.standardError.write(Data("render: \(given) given, so the background is \(mode) (--background \(mode))\n".utf8))
        }
        try request.run()
    }
}
