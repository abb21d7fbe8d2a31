import CVisionAPI
import CVisionLoader
import Foundation
import MatteboxCore
import MatteboxRuntime

/// Calibrates a stereo camera from chessboard pairs (`mattebox calibrate`)
/// and writes the file the Depth plugin and `mattebox depth` rectify with.
package struct StereoCalibrator: Sendable {
    /// Inner corners per row and column, e.g. 9x6.
    package var boardColumns: Int
    package var boardRows: Int
    /// Side of one square in millimetres (sets the baseline's units).
    package var squareMillimetres: Double

    package init(boardColumns: Int = 9, boardRows: Int = 6, squareMillimetres: Double = 25) {
        self.boardColumns = boardColumns
        self.boardRows = boardRows
        self.squareMillimetres = squareMillimetres
    }

    package struct Result: Sendable, Codable {
        package var rms: Double
        package var leftRMS: Double
        package var rightRMS: Double
        package var pairsUsed: Int
        /// Pairs where the board was not found in both views.
        package var pairsSkipped: [Int]
        package var focalPixels: Double
        package var baselineMillimetres: Double
    }

    /// Calibrates and writes the result atomically to `output`.
    package func calibrate(lefts: [PixelImage], rights: [PixelImage], output: URL) throws -> Result {
        try VisionLibrary.load()
        guard lefts.count == rights.count, !lefts.isEmpty else {
            throw MatteboxError("calibration needs as many right views as left views (\(lefts.count) left, \(rights.count) right)")
        }
        var leftViews = lefts.map(\.visionImage), rightViews = rights.map(\.visionImage)
        var found = [Int32](repeating: 0, count: lefts.count)
        var result = mbx_cv_calibration()
        var error = mbx_cv_error()
        let temporary = output.deletingLastPathComponent()
            .appendingPathComponent(".\(output.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).yml")
        defer { try? FileManager.default.removeItem(at: temporary) }
        let status = mbx_cvl_calibrate_stereo(
            &leftViews, &rightViews, Int32(lefts.count), Int32(boardColumns), Int32(boardRows), squareMillimetres,
            temporary.path, &found, &result, &error)
        try VisionCall.check(status, error, "stereo calibration")
        try AtomicFile.write(try Data(contentsOf: temporary), to: output)
        return Result(
            rms: result.rms, leftRMS: result.left_rms, rightRMS: result.right_rms, pairsUsed: Int(result.pairs_used),
            pairsSkipped: found.indices.filter { found[$0] == 0 }.map { $0 + 1 }, focalPixels: result.focal_px,
            baselineMillimetres: result.baseline)
    }
}
