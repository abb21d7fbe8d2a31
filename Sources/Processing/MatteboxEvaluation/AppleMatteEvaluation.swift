import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxRuntime
import MatteboxVision

/// Compares the mattes Mattebox makes for an iPhone photo with those the iPhone stored in it.
/// Apple's mattes are no ground truth, but they are what iPhone-aware editors were made for: the
/// semantic mattes are made anew (Apple's taken out first) on Apple's own portrait matte, as a user
/// re-running them would, and the portrait matte is made anew apart; each is scored by IoU at
/// Apple's matte's size (both thresholded at half).
package struct AppleMatteEvaluation {
    package struct Row: Sendable, Codable {
        package var photo: String
        package var matte: String
        /// Whose matte exists: "both", "Apple's only", "ours only" or "neither".
        package var made: String
        /// IoU where both exist.
        package var iou: Double?
        /// The share of the frame each covers (0 when it does not exist).
        package var appleShare: Double
        package var oursShare: Double
    }

    static let roles = ImageRole.mattesByShortName

    let semanticRunner: PipelineRunner
    let portraitRunner: PipelineRunner

    package init(registry: PluginRegistry) throws {
        func runner(_ text: String) throws -> PipelineRunner {
            let file = try PipelineFile.parse(text, path: "(Apple matte evaluation)")
            return try PipelineRunner(pipeline: try PipelineValidator.validate(file, registry: registry), registry: registry)
        }
        semanticRunner = try runner("stages:\n  - plugin: org.mattebox.semantic-mattes\n    params: { existing: replace }")
        portraitRunner = try runner("stages:\n  - plugin: org.mattebox.portrait-matte\n    params: { existing: replace }")
    }

    /// One row per matte kind, for a photo that holds at least one matte of its own.
    package func run(file: URL) throws -> [Row] {
        let original = try ImageDecoder.decodePhoto(at: file)
        let apple = Self.roles.filter { original.auxiliary[$0.role] != nil }
        guard !apple.isEmpty else { throw MatteboxError("\(file.path): holds no portrait or semantic mattes of its own to compare with") }
        // Made anew: Apple's matte is taken out first, so a matte the plugin does not make is missing, not Apple's.
        var semantic = original, portrait = original
        for (_, role) in Self.roles where role != .portraitMatte { semantic.setAuxiliary(nil, for: role) }
        portrait.setAuxiliary(nil, for: .portraitMatte)
        _ = try semanticRunner.run(&semantic)
        _ = try portraitRunner.run(&portrait)
        return Self.roles.map { name, role in
            let ours = (role == .portraitMatte ? portrait : semantic).auxiliary[role]
            return Self.row(photo: file.lastPathComponent, matte: name, apple: original.auxiliary[role], ours: ours)
        }
    }

    static func row(photo: String, matte: String, apple: PixelImage?, ours: PixelImage?) -> Row {
        func share(_ image: PixelImage?) -> Double {
            guard let image else { return 0 }
            return Double(QualityMetrics.threshold(image).filter { $0 }.count) / Double(image.width * image.height)
        }
        guard let apple, let ours else {
            let made = apple != nil ? "Apple's only" : ours != nil ? "ours only" : "neither"
            return Row(photo: photo, matte: matte, made: made, iou: nil, appleShare: share(apple), oursShare: share(ours))
        }
        // Ours sampled at Apple's matte's pixels (the two may differ in size, never in aspect).
        let truth = QualityMetrics.threshold(apple)
        let resampled = (0..<(apple.width * apple.height)).map { i -> Bool in
            let x = (i % apple.width) * ours.width / apple.width, y = (i / apple.width) * ours.height / apple.height
            return ours.sample(x: x, y: y) >= 128
        }
        return Row(
            photo: photo, matte: matte, made: "both", iou: QualityMetrics.iou(resampled, truth), appleShare: share(apple),
            oursShare: share(ours))
    }
}
