import ArgumentParser
import MatteboxBatch
import MatteboxImageIO
import MatteboxPipeline

/// The options `process` and `render` share, declared once: where results go, in which format and
/// quality, how many photos at once, what happens to files already there, and how the run reports.
/// Both commands run a `BatchRequest`, so an option here means the same in each.
struct BatchOutputOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: "Folder to write results to (created if missing); - writes the one photo to standard output.")
    var output: String
    @Option(
        name: .customLong("set"),
        help: ArgumentHelp(
            "Set a stage's parameter: STAGE.KEY=VALUE, repeatable (e.g. --set portrait-effect.max-blur=0.05).",
            discussion: "STAGE is a plugin id or its last part (`mattebox plugins inspect STAGE` lists its parameters); the value is checked like one in a pipeline file.",
            valueName: "stage.key=value"))
    var settings: [String] = []
    @Option(
        help: "Output format: \(ImageContainers.writableNames), any case or alias (jpg, heif); default: \(PhotoWriter.defaultFormatRule). A pipeline's HEIF stage writes heic (avif with --format avif; with --aux-png the format given).",
        completion: Completions.formats)
    var format: String?
    @Option(help: ArgumentHelp("JPEG or HEIF quality, 1-100 (default: \(OutputFormat.defaultQualities)), for the images that are encoded."))
    var quality: Int?
    @Flag(help: "Also write each auxiliary image as <name>.<role>.png (float depth as 16-bit millimetres, other float images as 16-bit; the scale is in the PNG's tEXt mattebox:<role>-scale).")
    var auxPng = false
    @Option(name: .shortAndLong, parsing: .unconditional, help: "Photos processed at once, each in its own worker (default: the number of cores).")
    var jobs: Int?
    @Option(help: ArgumentHelp(
        "What the photos in flight may hold in memory at once, e.g. 1.5G or 900M, or none (default: four fifths of what the machine has available).",
        discussion: "Each photo's worker is estimated from its picture size (about 80 MiB plus 24 bytes a pixel: 360 MiB for 12 MP), the batch itself and the inference process several workers share (450 MiB) are set aside first; fewer workers than -j start when the budget holds fewer of the first photos, and a photo waits while it would pass the budget; one photo always runs."))
    var memoryBudget: String?
    @Flag(help: "Skip photos whose outputs are complete for the same input content and pipeline.") var resume = false
    @Option(parsing: .unconditional, help: "Add this to every output's name (photo.jpg -> photo-edited.jpg with --suffix -edited), e.g. to write beside the originals.")
    var suffix: String?
    @Flag(help: "Replace earlier outputs in the output folder, also those changed since Mattebox wrote them (by default a file changed since is yours and is kept). Files Mattebox did not write are still kept.")
    var overwrite = false
    @Flag(help: "Replace any existing file an output is named as, also files Mattebox did not write (another photo with the output's name); never an input.")
    var replaceOtherFiles = false
    @Flag(name: [.customShort("n"), .customLong("no-clobber")], help: "Skip photos whose output file already exists.")
    var noClobber = false
    @Flag(help: "Print the JSON report on standard output instead of text.") var json = false
    @Flag(help: "List what would happen to each photo (process, skip as already done, refuse and why) and stop.")
    var dryRun = false

    /// These options set on a request.
    func apply(to request: inout BatchRequest) {
        request.settings = settings
        request.format = format
        request.quality = quality
        request.auxPng = auxPng
        request.jobs = jobs
        request.memoryBudget = memoryBudget
        request.resume = resume
        request.suffix = suffix
        request.overwrite = overwrite
        request.replaceOtherFiles = replaceOtherFiles
        request.noClobber = noClobber
        request.json = json
        request.dryRun = dryRun
    }
}
