import ArgumentParser
import Foundation
import MatteboxBatch
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxVision
import MatteboxPluginHost
import MatteboxRuntime

/// `mattebox process`: runs a pipeline file over photos and folders of photos
/// and writes the results, in parallel worker processes, resumably.
struct ProcessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "process",
        abstract: "Run a pipeline over photos (JPEG, PNG, TIFF, WebP, HEIC) and write the results.",
        discussion: """
            Folders are walked recursively and their tree is mirrored under the output folder. Each \
            photo succeeds or fails on its own; the exit status is 1 when any photo failed. Plugins \
            run in worker processes (-j of them), so a plugin that crashes or hangs fails only its \
            photo. Originals are never modified; outputs are written atomically and recorded in \
            OUT/.mattebox-manifest*.jsonl, which --resume reads to skip photos already done with the \
            same content and pipeline. --shard K/N (K from 0) processes a stable 1/N of the photos, \
            so N machines can split one archive. Without --pipeline, photos are turned upright from \
            their EXIF orientation.
            """)

    @OptionGroup var verbosity: Verbosity
    @Argument(help: "Photos, or folders to walk for photos; - reads one photo from standard input.", completion: .file())
    var photos: [String]
    @Option(name: .shortAndLong, help: "Folder to write results to (created if missing); - writes the one photo to standard output.")
    var output: String
    @Option(
        name: .customLong("set"),
        help: ArgumentHelp(
            "Set a stage's parameter: STAGE.KEY=VALUE, repeatable (e.g. --set portrait-matte.effort=quality).",
            discussion: "STAGE is a plugin id or its last part; the value is checked like one in the file.",
            valueName: "stage.key=value"))
    var settings: [String] = []
    @Option(
        help: ArgumentHelp(
            "Pipeline file (YAML), a named pipeline (e.g. portrait-mattes; `mattebox pipeline list` lists them), or stages joined by ! (e.g. \"orientation ! portrait-matte effort=quality ! heif\").",
            discussion: "In a pipeline written inline, each stage is a plugin id or its last part, then KEY=VALUE parameters; ? before a stage makes it optional."),
        completion: Completions.pipelines)
    var pipeline: String?
    @Option(help: "Output format: \(ImageContainers.writableNames), any case or alias (jpg, heif); default: \(PhotoWriter.defaultFormatRule). A pipeline's HEIF stage writes heic (avif with --format avif; with --aux-png the format given).", completion: Completions.formats)
    var format: String?
    @Option(help: ArgumentHelp(
        "keep (the default): an HDR photo's gain map goes into the output where the format holds it (HEIC, AVIF; noted where it cannot); drop: leave it out, an SDR photo.",
        valueName: "keep|drop"))
    var hdr: String?
    @Option(help: ArgumentHelp("JPEG or HEIF quality, 1-100 (default: \(OutputFormat.defaultQualities)), for the images that are encoded.")) var quality: Int?
    @Flag(help: "Encode every image again. By default a HEIF output copies the images a HEIF input holds whose pixels no stage changed (the primary, its thumbnail, depth, mattes, gain map) byte for byte: no generation loss, and only new images cost encoding time.")
    var reencode = false
    @Option(help: ArgumentHelp(
        "How a JPEG output holds depth: keep (the input's own layout, an iPhone's MPF images or Lens Blur's GDepth, where the photo and its depth did not change; else Dynamic Depth 1.0) or dynamic-depth (always Dynamic Depth 1.0, which Android and Google Photos read).",
        valueName: "keep|dynamic-depth"))
    var jpegDepth: JPEGDepthLayout = .keep

    /// `--jpeg-depth`: the layout a JPEG output's depth is written in.
    enum JPEGDepthLayout: String, ExpressibleByArgument, CaseIterable {
        case keep
        case dynamicDepth = "dynamic-depth"
    }
    @Option(help: "Camera position for mirroring policies: front, back, external (default: from EXIF).")
    var cameraPosition: String?
    @Option(name: .customLong("aux"), help: "Attach an auxiliary image to the photo: ROLE=FILE (e.g. depth=d.png).")
    var auxiliary: [String] = []
    @Flag(help: "Also write each auxiliary image as <name>.<role>.png (float depth as 16-bit millimetres, other float images as 16-bit; the scale is in the PNG's tEXt mattebox:<role>-scale).") var auxPng = false
    @Option(
        name: .shortAndLong, parsing: .unconditional,
        help: "Photos processed at once, each in its own worker (default: the number of cores).")
    var jobs: Int?
    @Flag(help: "Encode the primary only once every stage has run. By default, with fewer photos at once than cores, it is encoded while the matte stages run: faster, but a photo's encode and mattes are then in memory together.")
    var noEncodeAhead = false
    @Flag(help: "Skip photos whose outputs are complete for the same input content and pipeline.") var resume = false
    @Option(help: "Process only shard K of N (K = 0..N-1), chosen by a stable hash of each photo's path.")
    var shard: String?
    @Option(help: "Write a JSON report (per-photo status, error, outputs, stage timings) to this file.")
    var report: String?
    @Option(help: "Seconds one photo may take before its worker is killed and the photo fails.")
    var timeout: Double = 600
    @Flag(help: "Do not attach NAME.<role>.png|pfm|tif files beside NAME.jpg as its auxiliary images; process them as photos.")
    var noSidecars = false
    @Option(parsing: .unconditional, help: "Add this to every output's name (photo.jpg -> photo-edited.jpg with --suffix -edited), e.g. to write beside the originals.")
    var suffix: String?
    @Flag(help: "Replace earlier outputs in the output folder, also those changed since Mattebox wrote them (by default a file changed since is yours and is kept). Files Mattebox did not write are still kept.")
    var overwrite = false
    @Flag(help: "Replace any existing file an output is named as, also files Mattebox did not write (another photo with the output's name); never an input.")
    var replaceOtherFiles = false
    @Flag(name: [.customShort("n"), .customLong("no-clobber")], help: "Skip photos whose output file already exists.")
    var noClobber = false
    @Flag(help: "Print per-stage timings and peak memory for every photo.") var timings = false
    @Flag(help: "Print the JSON report on standard output instead of text.") var json = false
    @Flag(help: "Report progress as JSON lines on standard error (one per finished photo) instead of a bar.")
    var jsonProgress = false
    @Flag(help: "List what would happen to each photo (process, skip as already done, refuse and why) and stop.")
    var dryRun = false
    @Flag(help: "Run at full speed whatever the thermal state (by default a batch runs fewer photos at once when hot).")
    var ignorePressure = false

    func validate() throws {
        try asCommandLineMistake { try BatchRequest(self).validate() }
    }

    func run() throws {
        try BatchRequest(self).run()
    }
}

extension BatchRequest {
    /// The request `process`'s options make: the pipeline as the user named it.
    init(_ command: ProcessCommand) {
        self.init(photos: command.photos, output: command.output, pipeline: .named(command.pipeline))
        settings = command.settings
        format = command.format
        quality = command.quality
        reencode = command.reencode
        hdr = command.hdr
        dynamicDepth = command.jpegDepth == .dynamicDepth
        cameraPosition = command.cameraPosition
        auxiliary = command.auxiliary
        auxPng = command.auxPng
        jobs = command.jobs
        noEncodeAhead = command.noEncodeAhead
        resume = command.resume
        shard = command.shard
        report = command.report
        timeout = command.timeout
        noSidecars = command.noSidecars
        suffix = command.suffix
        overwrite = command.overwrite
        replaceOtherFiles = command.replaceOtherFiles
        noClobber = command.noClobber
        timings = command.timings
        json = command.json
        jsonProgress = command.jsonProgress
        dryRun = command.dryRun
        ignorePressure = command.ignorePressure
        quiet = command.verbosity.quiet
    }
}
