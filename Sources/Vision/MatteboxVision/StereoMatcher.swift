import CVisionAPI
import CVisionLoader
import Foundation
import MatteboxRuntime
import MatteboxCore

/// Disparity of a stereo pair in pixels (left view), for `mattebox depth`,
/// the quality evaluation and anyone who wants it without a pipeline.
package struct StereoMatcher: Sendable {
    package enum Method: Sendable {
        /// Grey SGBM (3x3), holes filled from the background, weighted median at holes and depth edges.
        case refined
        /// The reference in ../shared/eval: colour SGBM (5x5) with row-wise background filling.
        case baseline
    }

    package var method: Method = .refined
    /// Search range; nil = a sixth of the width.
    package var numDisparities: Int?
    /// A calibration from `mattebox calibrate`: the views are rectified first.
    package var calibration: URL?

    package init(method: Method = .refined, numDisparities: Int? = nil, calibration: URL? = nil) {
        self.method = method
        self.numDisparities = numDisparities
        self.calibration = calibration
    }

    package struct Result: Sendable {
        package var disparity: PixelImage // one float channel, pixels
        package var validFraction: Double
        package var numDisparities: Int
        package var focalPixels: Double?
        package var baselineMillimetres: Double?
    }

    package func disparity(left: PixelImage, right: PixelImage) throws -> Result {
        try VisionLibrary.load()
        let out = PixelImage(width: left.width, height: left.height, channels: 1, format: .float32)
        var leftView = left.visionImage, rightView = right.visionImage
        var result = mbx_cv_stereo_result()
        var error = mbx_cv_error()
        let path = calibration?.path
        let status = (path ?? "").withCString { cPath in
            var options = mbx_cv_stereo_options(
                num_disparities: Int32(numDisparities ?? 0), refine: method == .refined ? 1 : -1,
                calibration_path: path == nil ? nil : cPath, out_width: 0, out_height: 0)
            return mbx_cvl_stereo_disparity(
                &leftView, &rightView, &options, out.data.assumingMemoryBound(to: Float.self), &result, &error)
        }
        try VisionCall.check(status, error, "stereo matching")
        return Result(
            disparity: out, validFraction: result.valid_fraction, numDisparities: Int(result.num_disparities),
            focalPixels: result.focal_px > 0 ? result.focal_px : nil, baselineMillimetres: result.baseline > 0 ? result.baseline : nil)
    }
}
