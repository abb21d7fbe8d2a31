import CVisionAPI
import CVisionLoader
import Foundation
import MatteboxCore
import MatteboxRuntime

/// Calibrates a stereo camera from chessboard pairs (`mattebox calibrate`)
/// and writes the file the Depth plugin and `mattebox depth` rectify with.
public struct StereoCalibrator: Sendable {
    /// Inner corners per row and column, e.g. 9x6.
    public var boardColumns: Int
    public var boardRows: Int
    /// Side of one square in millimetres (sets the baseline's units).
    public var squareMillimetres: Double

    public init(boardColumns: Int = 9, boardRows: Int = 6, squareMillimetres: Double = 25) {
        self.boardColumns = boardColumns
        self.boardRows = boardRows
        self.squareMillimetres = squareMillimetres
    }

    public struct Result: Sendable, Codable {
        public var rms: Double
        public var leftRMS: Double
        public var rightRMS: Double
        public var pairsUsed: Int
        /// Pairs where the board was not found in both views.
        public var pairsSkipped: [Int]
        public var focalPixels: Double
        public var baselineMillimetres: Double
    }

    /// Calibrates and writes the result atomically to `output`.
    public func calibrate(lefts: [PixelImage], rights: [PixelImage], output: URL) throws -> Result {
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
