import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxRuntime
import MatteboxVision

/// Scores the SemanticMattes plugin's sky matte, run through the real plugin
/// host after the portrait matte (as a pipeline runs it), against sky labels:
/// a folder with `images/NAME.*` and `labels/NAME.png` (white = sky, the
/// photo's size). `Samples/eval/sky-photos.sh` makes one from opencv-doc.
package struct SkyEvaluation {
    package struct Row: Sendable, Codable {
        package var photo: String
        /// Whether a sky matte was made (a photo without one scores IoU 0 where it has sky).
        package var found: Bool
        package var iou: Double
        /// IoU within 3 px of the labelled sky's edge (rooftops, branches).
        package var boundaryIoU: Double
        package var seconds: Double
    }

    static let pipeline = """
        stages:
          - plugin: org.mattebox.portrait-matte
            params: { scale: 1 }
          - plugin: org.mattebox.semantic-mattes
            params: { scale: 1, mattes: sky }
        """

    let runner: PipelineRunner

    package init(registry: PluginRegistry) throws {
        let file = try PipelineFile.parse(SkyEvaluation.pipeline, path: "(sky evaluation)")
        runner = try PipelineRunner(pipeline: try PipelineValidator.validate(file, registry: registry), registry: registry)
    }

    /// One row per labelled photo, by name.
    package func run(directory: URL) throws -> [Row] {
        let images = directory.appendingPathComponent("images"), labels = directory.appendingPathComponent("labels")
        let names = try FileManager.default.contentsOfDirectory(atPath: images.path).filter { !$0.hasPrefix(".") }.sorted()
        guard !names.isEmpty else { throw MatteboxError("\(images.path): no photos to score") }
        return try names.map { name in
            let stem = (name as NSString).deletingPathExtension
            let labelURL = labels.appendingPathComponent(stem + ".png")
            let label = try ImageDecoder.decodeAuxiliaryImage(at: labelURL)
            var photo = try ImageDecoder.decodePhoto(at: images.appendingPathComponent(name))
            let reports = try runner.run(&photo)
            guard label.width == photo.primary.width, label.height == photo.primary.height else {
                throw MatteboxError("\(labelURL.path): \(label.width)x\(label.height), but the photo is \(photo.primary.width)x\(photo.primary.height)")
            }
            let truth = QualityMetrics.threshold(label)
            let sky = photo.auxiliary[.skyMatte].map(QualityMetrics.threshold) ?? QualityMetrics.Mask(repeating: false, count: truth.count)
            return Row(
                photo: stem, found: photo.auxiliary[.skyMatte] != nil, iou: QualityMetrics.iou(sky, truth),
                boundaryIoU: QualityMetrics.boundaryIoU(sky, truth, width: label.width, height: label.height),
                seconds: reports.last?.seconds ?? 0)
        }
    }
}
