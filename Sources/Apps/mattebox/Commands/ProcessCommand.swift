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
    @OptionGroup var outputs: BatchOutputOptions
    @Option(
        help: ArgumentHelp(
            "Pipeline file (YAML), a named pipeline (e.g. portrait-mattes; `mattebox pipeline list` lists them), or stages joined by ! (e.g. \"orientation ! portrait-matte effort=quality ! heif\").",
            discussion: "In a pipeline written inline, each stage is a plugin id or its last part, then KEY=VALUE parameters; ? before a stage makes it optional."),
        completion: Completions.pipelines)
    var pipeline: String?
    @Option(help: ArgumentHelp(
        "keep (the default): an HDR photo's gain map goes into the output where the format holds it (HEIC, AVIF; noted where it cannot); drop: leave it out, an SDR photo.",
        valueName: "keep|drop"))
    var hdr: String?
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
    @Flag(help: "Encode the primary only once every stage has run. By default, with fewer photos at once than cores, it is encoded while the matte stages run: faster, but a photo's encode and mattes are then in memory together.")
    var noEncodeAhead = false
    @Option(help: "Process only shard K of N (K = 0..N-1), chosen by a stable hash of each photo's path.")
    var shard: String?
    @Option(help: "Write a JSON report (per-photo status, error, outputs, stage timings) to this file.")
    var report: String?
    @Option(help: "Seconds one photo may take before its worker is killed and the photo fails.")
    var timeout: Double = 600
    @Flag(help: "Do not attach NAME.<role>.png|pfm|tif files beside NAME.jpg as its auxiliary images; process them as photos.")
    var noSidecars = false
    @Flag(help: "Print per-stage timings and peak memory for every photo.") var timings = false
    @Flag(help: "Report progress as JSON lines on standard error (one per finished photo) instead of a bar.")
    var jsonProgress = false
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
        self.init(photos: command.photos, output: command.outputs.output, pipeline: .named(command.pipeline))
        command.outputs.apply(to: &self)
        reencode = command.reencode
        hdr = command.hdr
        dynamicDepth = command.jpegDepth == .dynamicDepth
        cameraPosition = command.cameraPosition
        auxiliary = command.auxiliary
        noEncodeAhead = command.noEncodeAhead
        shard = command.shard
        report = command.report
        timeout = command.timeout
        noSidecars = command.noSidecars
        timings = command.timings
        jsonProgress = command.jsonProgress
        ignorePressure = command.ignorePressure
        quiet = command.verbosity.quiet
    }
}
