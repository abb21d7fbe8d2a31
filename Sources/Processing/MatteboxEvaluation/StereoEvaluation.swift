import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxRuntime
import MatteboxVision

/// Scores Mattebox's stereo matching against the plain SGBM reference on
/// scenes with ground truth, both measured in the same run on the same
/// machine. Scenes are the Middlebury 2001/2003 layout of ../shared/eval
/// (`middlebury_v2/<scene>/`) or any folder with a `scene.json` (see
/// `Scene`), which is how scenes nobody tuned on are added.
package enum StereoEvaluation {
    /// One scene's numbers.
    package struct Row: Sendable, Codable {
        package var scene: String
        /// Which pixels were scored: "non-occluded" or "all with known truth".
        package var scored: String
        package var mattebox: QualityMetrics.StereoScore
        package var baseline: QualityMetrics.StereoScore
        /// Share of pixels the matcher matched before filling (after filling: 100%).
        package var matchedBeforeFilling: Double
        package var matteboxSecondsPerMegapixel: Double
        package var baselineSecondsPerMegapixel: Double
    }

    /// A stereo pair with ground truth: what `scene.json` holds. Truth is a
    /// grey image whose value / `scale` is the left view's disparity (0 =
    /// unknown); `mask` (optional, 0 = not scored) is usually the
    /// non-occluded mask; `range` is the disparity search range.
    package struct Scene: Sendable, Codable {
        package var name: String
        package var left: String
        package var right: String
        package var truth: String
        package var scale: Float
        package var range: Int
        package var mask: String?
    }

    /// The Middlebury 2001/2003 scenes: ground-truth scale and search range.
    static let middlebury: [Scene] = [
        ("tsukuba", "groundtruth.bmp", 16, 16), ("venus", "groundtruth.png", 8, 32),
        ("teddy", "groundtruth.png", 4, 64), ("cones", "groundtruth.png", 4, 64),
    ].map {
        Scene(name: $0.0, left: "imL.png", right: "imR.png", truth: $0.1, scale: $0.2, range: $0.3,
              mask: "\($0.0)_mask_nonocc.bmp")
    }

    /// The scenes under `directory`: the Middlebury layout's four, then every
    /// subfolder with a `scene.json`, by name.
    package static func scenes(in directory: URL) throws -> [(folder: URL, scene: Scene)] {
        let known = middlebury.map { (directory.appendingPathComponent($0.name), $0) }
            .filter { FileManager.default.fileExists(atPath: $0.0.appendingPathComponent("imL.png").path) }
        let folders = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
        let described = try folders.sorted { $0.lastPathComponent < $1.lastPathComponent }.compactMap { folder -> (URL, Scene)? in
            let file = folder.appendingPathComponent("scene.json")
            guard FileManager.default.fileExists(atPath: file.path) else { return nil }
            do {
                return (folder, try JSONDecoder().decode(Scene.self, from: Data(contentsOf: file)))
            } catch {
                throw MatteboxError("\(file.path): not a stereo scene description: \(error)")
            }
        }
        return known + described
    }

    /// Every scene found under `directory`; timings take the best of `repeats` runs.
    package static func run(directory: URL, repeats: Int = 3) throws -> [Row] {
        try scenes(in: directory).map { try run($0.scene, in: $0.folder, repeats: repeats) }
    }

    static func run(_ scene: Scene, in folder: URL, repeats: Int) throws -> Row {
        func load(_ name: String) throws -> PixelImage {
            try ImageDecoder.decodePhoto(at: folder.appendingPathComponent(name)).primary
        }
        let left = try load(scene.left), right = try load(scene.right), truthImage = try load(scene.truth)
        guard truthImage.width == left.width, truthImage.height == left.height else {
            throw MatteboxError("\(scene.name): the truth is \(truthImage.width)x\(truthImage.height), the left view \(left.width)x\(left.height)")
        }
        let truth = (0..<(left.width * left.height)).map {
            Float(truthImage.sample(x: $0 % left.width, y: $0 / left.width)) / scene.scale
        }
        var mask = [Bool](repeating: true, count: truth.count)
        if let maskFile = scene.mask {
            let maskImage = try load(maskFile)
            mask = (0..<truth.count).map { maskImage.sample(x: $0 % left.width, y: $0 / left.width) > 0 }
        }
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
            scene: scene.name, scored: scene.mask == nil ? "all with known truth" : "non-occluded",
            mattebox: QualityMetrics.stereo(estimate: ours.disparity, truth: truth, mask: mask),
            baseline: QualityMetrics.stereo(estimate: reference.disparity, truth: truth, mask: mask),
            matchedBeforeFilling: ours.validFraction, matteboxSecondsPerMegapixel: ourTime,
            baselineSecondsPerMegapixel: referenceTime)
    }
}
