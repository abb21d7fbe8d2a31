import ArgumentParser
import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxVision

/// `mattebox calibrate`: stereo calibration from chessboard pairs.
struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Calibrate a stereo camera from chessboard photos taken in pairs.",
        discussion: """
            Pairs are matched by sorted file name (left01.jpg with right01.jpg); when one folder holds \
            both cameras' photos, names containing "left" and "right" tell them apart. --board counts inner \
            corners (a board of 10x7 squares has 9x6). The output (OpenCV YAML) is what `mattebox depth \
            --calibration` and the Depth plugin's calibration parameter rectify with.
            """)

    @OptionGroup var verbosity: Verbosity
    @Option(help: "Folder of left-camera chessboard photos.") var left: String
    @Option(help: "Folder of right-camera chessboard photos.") var right: String
    @Option(help: "Inner corners, COLSxROWS.") var board: String = "9x6"
    @Option(help: "Side of one square in millimetres.") var square: Double = 25
    @Option(name: .shortAndLong, help: "Calibration file to write (.yml).") var output: String
    @Flag(help: "Print the result as JSON.") var json = false

    func run() throws {
        let parts = board.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts.allSatisfy({ $0 >= 2 }) else {
            throw ValidationError("--board takes inner corners as COLSxROWS, e.g. 9x6, not \(board)")
        }
        guard square > 0 else { throw ValidationError("--square must be positive") }
        let lefts = try photos(in: left, side: "left"), rights = try photos(in: right, side: "right")
        guard lefts.count == rights.count else {
            throw ValidationError("\(left) has \(lefts.count) photos but \(right) has \(rights.count); pairs must match")
        }
        let calibrator = StereoCalibrator(boardColumns: parts[0], boardRows: parts[1], squareMillimetres: square)
        let leftImages = try lefts.map { try ImageDecoder.decodePhoto(at: $0).primary }
        let rightImages = try rights.map { try ImageDecoder.decodePhoto(at: $0).primary }
        for (url, image) in zip(lefts + rights, leftImages + rightImages)
        where image.width != leftImages[0].width || image.height != leftImages[0].height {
            throw ValidationError(
                "\(url.path) is \(image.width)x\(image.height) but \(lefts[0].path) is \(leftImages[0].width)x\(leftImages[0].height); all views must share one size")
        }
        let result = try calibrator.calibrate(lefts: leftImages, rights: rightImages, output: URL(fileURLWithPath: output))
        if json {
            try JSONOutput.print(result)
            return
        }
        print(String(format: "RMS reprojection error %.3f px (left %.3f, right %.3f) from %d pairs",
                     result.rms, result.leftRMS, result.rightRMS, result.pairsUsed))
        if !result.pairsSkipped.isEmpty {
            print("Skipped (board not found in both views): " + result.pairsSkipped.map { lefts[$0 - 1].lastPathComponent }.joined(separator: ", "))
        }
        print(String(format: "Focal length %.1f px, baseline %.1f mm; written to %@", result.focalPixels,
                     result.baselineMillimetres, output))
    }

    private func photos(in folder: String, side: String) throws -> [URL] {
        let url = URL(fileURLWithPath: folder)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
            throw ValidationError("\(folder): cannot list the folder")
        }
        let images = names.filter { ImageContainers.photoExtensions.contains(($0 as NSString).pathExtension.lowercased()) }
        let bothSides = images.contains { $0.lowercased().contains("left") } && images.contains { $0.lowercased().contains("right") }
        let chosen = bothSides ? images.filter { $0.lowercased().contains(side) } : images
        guard !chosen.isEmpty else { throw ValidationError("\(folder): no JPEG, PNG or TIFF photos") }
        return chosen.sorted().map { url.appendingPathComponent($0) }
    }
}
