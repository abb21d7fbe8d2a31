import ArgumentParser
import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxRuntime
import MatteboxVision

/// `mattebox depth`: disparity of a stereo pair, as a file stereo tools read.
struct DepthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "depth",
        abstract: "Compute the disparity (pixels, left view) of a stereo pair.",
        discussion: """
            Writes PFM (float32, Middlebury's format) for .pfm outputs, or a 16-bit PNG of disparity × \
            --png-scale whose scale is stated in the PNG's tEXt chunk "\(ScaledPNG.scaleKey("disparity"))". \
            Every pixel is filled; --json reports how many were matched before filling.
            """)

    @OptionGroup var verbosity: Verbosity
    @Argument(help: "The left view (the reference).") var left: String
    @Argument(help: "The right view.") var right: String
    @Option(name: .shortAndLong, help: "Output file: .pfm or .png.") var output: String
    @Option(help: "A calibration from `mattebox calibrate`: rectify the views first.") var calibration: String?
    @Option(help: "Search range in pixels (default: a sixth of the width).") var maxDisparity: Int?
    @Option(help: "PNG only: stored value = disparity × scale.") var pngScale: Double = 256
    @Flag(help: "Print a JSON summary.") var json = false

    func run() throws {
        let outputURL = URL(fileURLWithPath: output)
        let isPNG = outputURL.pathExtension.lowercased() == "png"
        guard isPNG || outputURL.pathExtension.lowercased() == "pfm" else {
            throw ValidationError("--output must end in .pfm or .png, not \(output)")
        }
        guard pngScale > 0 else { throw ValidationError("--png-scale must be positive") }
        let leftImage = try ImageDecoder.decodePhoto(at: URL(fileURLWithPath: left)).primary
        let rightImage = try ImageDecoder.decodePhoto(at: URL(fileURLWithPath: right)).primary
        let matcher = StereoMatcher(numDisparities: maxDisparity, calibration: calibration.map { URL(fileURLWithPath: $0) })
        let start = ContinuousClock.now
        let result = try matcher.disparity(left: leftImage, right: rightImage)
        let seconds = start.secondsSince
        let data = isPNG
            ? try ScaledPNG.encode(result.disparity, scale: pngScale, what: "disparity")
            : DisparityFile.pfm(result.disparity)
        try AtomicFile.write(data, to: outputURL)
        let summary = DepthSummary(
            output: outputURL.path, width: leftImage.width, height: leftImage.height,
            searchRange: result.numDisparities, matchedBeforeFilling: result.validFraction,
            rectified: calibration != nil, seconds: seconds, pngScale: isPNG ? pngScale : nil)
        if json {
            try JSONOutput.print(summary)
        } else {
            print(String(format: "%@: %dx%d disparity, range %d px, %.1f%% matched before filling, %.2f s",
                         outputURL.path, leftImage.width, leftImage.height, result.numDisparities,
                         result.validFraction * 100, seconds))
        }
    }
}

struct DepthSummary: Encodable {
    var output: String
    var width: Int
    var height: Int
    var searchRange: Int
    var matchedBeforeFilling: Double
    var rectified: Bool
    var seconds: Double
    var pngScale: Double?
}
