import ArgumentParser
import Foundation
import MatteboxPipeline
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
            subject as well as the classical cut-out). A new background or a cut-out takes the matte, \
            or with depth alone what lies at or in front of the focal plane. A photo with neither \
            depth nor matte is written unchanged, with a note saying so (a new background or a \
            cut-out of it is an error). The rendered photo keeps the original's EXIF and colour \
            profile; its depth and mattes are left out (they describe the photo as shot) unless \
            --keep-auxiliary. Examples:
              mattebox render IMG_0001.HEIC -o out --aperture 2.8
              mattebox render IMG_0001.HEIC -o out --focus 0.3,0.6   (refocus)
              mattebox render portrait.jpg -o out --background colour:#1e3a5f
              mattebox render portrait.jpg -o out --background transparent --format png
            """)

    @OptionGroup var verbosity: Verbosity
    @Argument(help: "Photos, or folders to walk for photos.", completion: .file()) var photos: [String]
    @Option(name: .shortAndLong, help: "Folder to write the rendered photos to (created if missing).") var output: String
    @Option(help: "f-number, 1.4-16: smaller blurs more; f/16 leaves the photo sharp (Photos' default is f/4.5).")
    var aperture: Double = 4.5
    @Option(help: "subject (the person, or with depth alone the face or the nearest region) or x,y in 0-1 of the upright photo.")
    var focus = "subject"
    @Option(help: "blur, colour:#RRGGBB, image:PATH (scaled to cover the photo) or transparent (a cut-out with alpha).")
    var background = "blur"
    @Option(help: "How much bright points bloom into bokeh balls, 0-1 (0: off).") var highlights: Double = 0.5
    @Option(help: "auto: make a portrait matte first for a photo that has none (see above); none: only the photo's own matte and depth.")
    var matte: MatteChoice = .auto
    @Flag(help: "Keep depth and mattes with the rendered photo (they describe the photo as shot, not the render).")
    var keepAuxiliary = false
    @Option(help: "Output format (jpeg, png, heic); default: JPEG, or HEIC where JPEG would drop something the render keeps (a HEIC input's other images such as its gain map, a cut-out's alpha, depth and mattes with --keep-auxiliary).")
    var format: String?
    @Option(help: "JPEG or HEIF quality, 1-100.") var quality: Int?
    @Flag(help: "With --keep-auxiliary, also write each depth and matte beside the render as NAME.ROLE.png.") var auxPng = false
    @Option(name: .shortAndLong, parsing: .unconditional, help: "Photos rendered at once (default: the number of cores).")
    var jobs: Int?
    @Flag(help: "Skip photos already rendered with the same settings.") var resume = false
    @Option(parsing: .unconditional, help: "Add this to every output's name (IMG.jpg -> IMG-portrait.jpg with --suffix -portrait), e.g. to write beside the originals.")
    var suffix: String?
    @Flag(help: "Replace earlier renders in the output folder, also those changed since.") var overwrite = false
    @Flag(help: "Replace any existing file but an input (files Mattebox did not write too).") var replaceOtherFiles = false
    @Flag(name: [.customShort("n"), .long], help: "Skip photos whose outputs exist.") var noClobber = false
    @Flag(help: "Print the JSON report on standard output instead of text.") var json = false
    @Flag(help: "List what would happen to each photo and stop.") var dryRun = false

    /// `--matte`: whether a matte is made first.
    enum MatteChoice: String, ExpressibleByArgument, CaseIterable { case auto, none }

    func validate() throws {
        guard (1.4...16).contains(aperture) else { throw ValidationError("--aperture must be 1.4-16, not \(aperture)") }
        guard (0...1).contains(highlights) else { throw ValidationError("--highlights must be 0-1, not \(highlights)") }
        if focus != "subject" {
            let parts = focus.split(separator: ",").compactMap { Double($0) }
            guard parts.count == 2, parts.allSatisfy({ (0...1).contains($0) }) else {
                throw ValidationError("--focus is subject or x,y with both in 0-1 (e.g. 0.5,0.4), not \(focus)")
            }
        }
        // Checked here as the effect will read it, so a mistake is a command-line mistake (exit 64), not a failed photo.
        let lower = background.lowercased()
        if lower.hasPrefix("colour:") || lower.hasPrefix("color:") {
            let hex = lower.split(separator: ":", maxSplits: 1)[1].drop { $0 == "#" }
            guard hex.count == 6, UInt32(hex, radix: 16) != nil else {
                throw ValidationError("--background colour:#RRGGBB takes six hex digits (e.g. colour:#1e3a5f), not \(background)")
            }
        } else if lower.hasPrefix("image:") {
            let path = String(background.dropFirst("image:".count))
            guard FileManager.default.isReadableFile(atPath: path) else {
                throw ValidationError("--background image:\(path): no readable file there")
            }
        } else if !["blur", "transparent"].contains(lower) {
            throw ValidationError("--background is blur, colour:#RRGGBB, image:PATH or transparent, not \(background)")
        }
    }

    /// The pipeline the options describe: a portrait matte when the photo has none, then the effect.
    var pipelineText: String {
        var background = self.background
        if background.lowercased().hasPrefix("image:") {
            // Workers may run elsewhere in the tree: the image is named by its full path.
            background = "image:" + URL(fileURLWithPath: String(background.dropFirst("image:".count))).standardizedFileURL.path
        }
        let settings = PortraitEffectPipeline.Settings(
            aperture: aperture, focus: focus, background: background, highlights: highlights, keepAuxiliary: keepAuxiliary)
        return "# made by mattebox render from its options\n" + PortraitEffectPipeline.source(settings, matte: matte == .auto ? .auto : .none, path: "render").text
    }

    func run() throws {
        let folder = try StandardStreams.temporaryFolder()
        defer { StandardStreams.cleanUp(folder) }
        let pipeline = folder.appendingPathComponent("render.yaml")
        try pipelineText.write(to: pipeline, atomically: true, encoding: .utf8)
        var arguments = photos + ["-o", output, "--pipeline", pipeline.path]
        if let format { arguments += ["--format", format] }
        if let quality { arguments += ["--quality", "\(quality)"] }
        if auxPng { arguments.append("--aux-png") }
        if let jobs { arguments += ["--jobs", "\(jobs)"] }
        if resume { arguments.append("--resume") }
        if let suffix { arguments += ["--suffix", suffix] }
        if overwrite { arguments.append("--overwrite") }
        if replaceOtherFiles { arguments.append("--replace-other-files") }
        if noClobber { arguments.append("--no-clobber") }
        if json { arguments.append("--json") }
        if dryRun { arguments.append("--dry-run") }
        if verbosity.quiet { arguments.append("-q") }
        if verbosity.verbose > 0 { arguments.append("-" + String(repeating: "v", count: verbosity.verbose)) }
        try ProcessCommand.parse(arguments).run()
    }
}
