import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxRuntime
import MatteboxVision

/// Scores Mattebox's stereo matching against the plain SGBM reference on
/// Middlebury scenes with ground truth (the layout of ../shared/eval/stereo),
/// both measured in the same run on the same machine.
public enum StereoEvaluation {
    /// One scene's numbers.
    public struct Row: Sendable, Codable {
        public var scene: String
        public var mattebox: QualityMetrics.StereoScore
        public var baseline: QualityMetrics.StereoScore
        /// Share of pixels the matcher matched before filling (after filling: 100%).
        public var matchedBeforeFilling: Double
        public var matteboxSecondsPerMegapixel: Double
        public var baselineSecondsPerMegapixel: Double
    }

    /// Ground-truth scale and search range of the Middlebury 2001/2003 scenes.
    static let scenes: [(name: String, truth: String, scale: Float, range: Int)] = [
        ("tsukuba", "groundtruth.bmp", 16, 16), ("venus", "groundtruth.png", 8, 32),
        ("teddy", "groundtruth.png", 4, 64), ("cones", "groundtruth.png", 4, 64),
    ]

    /// Every known scene found under `directory`; timings take the best of `repeats` runs.
    public static func run(directory: URL, repeats: Int = 3) throws -> [Row] {
        try scenes.compactMap { scene in
            let folder = directory.appendingPathComponent(scene.name)
            guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("imL.png").path) else { return nil }
            let left = try ImageDecoder.decodePhoto(at: folder.appendingPathComponent("imL.png")).primary
            let right = try ImageDecoder.decodePhoto(at: folder.appendingPathComponent("imR.png")).primary
            let truthImage = try ImageDecoder.decodePhoto(at: folder.appendingPathComponent(scene.truth)).primary
            let truth = (0..<(left.width * left.height)).map {
                Float(truthImage.sample(x: $0 % left.width, y: $0 / left.width)) / scene.scale
            }
            let maskImage = try ImageDecoder.decodePhoto(
                at: folder.appendingPathComponent("\(scene.name)_mask_nonocc.bmp")).primary
            let mask = (0..<truth.count).map { maskImage.sample(x: $0 % left.width, y: $0 / left.width) > 0 }

            func measure(_ method: StereoMatcher.Method) throws -> (StereoMatcher.Result, Double) {
                let matcher = StereoMatcher(method: method, numDisparities: scene.range)
                var best = Double.infinity
                var result: StereoMatcher.Result?
                for _ in 0..<max(1, repeats) {
                    let start = ContinuousClock.now
                    result = try matcher.disparity(left: left, right: right)
                    best = min(best, start.secondsSince)
                }
                return (result!, best / (Double(left.width * left.height) / 1e6))
            }
            let (ours, ourTime) = try measure(.refined)
            let (reference, referenceTime) = try measure(.baseline)
            return Row(
                scene: scene.name, mattebox: QualityMetrics.stereo(estimate: ours.disparity, truth: truth, mask: mask),
                baseline: QualityMetrics.stereo(estimate: reference.disparity, truth: truth, mask: mask),
                matchedBeforeFilling: ours.validFraction, matteboxSecondsPerMegapixel: ourTime,
                baselineSecondsPerMegapixel: referenceTime)
        }
    }
}
