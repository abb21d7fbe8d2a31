import Foundation
import MatteboxCore
import MatteboxPluginHost
import MatteboxRuntime

/// A photo that a required stage failed, with what the stages did up to then.
package struct StageFailure: Error, CustomStringConvertible, Sendable {
    package var reports: [StageReport]
    package var message: String
    package var description: String { message }
}

/// Runs a validated pipeline over photos with one plugin instance per stage,
/// made once and reused for every photo. A required stage's failure fails the
/// photo; an optional stage that fails is rolled back and skipped with a warning.
package final class PipelineRunner: Sendable {
    package let pipeline: ValidatedPipeline
    private let instances: [PluginInstance]

    package init(pipeline: ValidatedPipeline, registry: PluginRegistry) throws {
        self.pipeline = pipeline
        instances = try pipeline.stages.map { try registry.instantiate($0.plugin.id, parameters: $0.parameters) }
    }

    /// Runs every stage, except those whose outputs are all in `skippedRoles`
    /// (a capture under thermal pressure turns depth off this way): they are
    /// reported as skipped with `reason`, which the photo also keeps as why
    /// those images are absent.
    ///
    /// `primaryIsFinal` is called once, before the first stage after which
    /// no stage declares the primary as an output (the matte stages), so the
    /// caller can start encoding the primary while they run.
    package func run(
        _ photo: inout Photo, skippingStagesProviding skippedRoles: Set<ImageRole> = [], reason: String = "",
        primaryIsFinal: ((Photo) -> Void)? = nil
    ) throws(StageFailure) -> [StageReport] {
        var reports: [StageReport] = []
        let lastPixelStage = pipeline.stages.lastIndex { $0.plugin.outputs.contains { $0.role == .primary } } ?? -1
        for (index, (stage, instance)) in zip(pipeline.stages, instances).enumerated() {
            if index == lastPixelStage + 1 { primaryIsFinal?(photo) }
            let outputs = stage.plugin.outputs.map(\.role)
            if !outputs.isEmpty, outputs.allSatisfy(skippedRoles.contains) {
                for role in outputs where photo.image(role) == nil { photo.absenceReasons[role] = reason }
                reports.append(StageReport(plugin: stage.plugin.id, status: .skipped, seconds: 0, message: reason))
                continue
            }
            let snapshot = stage.required ? nil : photo.deepCopy()
            let clock = ContinuousClock.now
            let counted = PeakMemory.reset()
            do {
                try instance.process(&photo, services: ImageIOPhotoServices())
                try checkOutputs(of: stage, in: photo)
                reports.append(StageReport(
                    plugin: stage.plugin.id, status: .ok, seconds: clock.secondsSince, message: nil,
                    peakMiB: counted ? PeakMemory.mebibytes() : nil))
                // What the stage freed (a network's activations, working frames) goes back before the next one.
                FreedMemory.release()
            } catch {
                let message = "\(error)"
                if let snapshot {
                    photo = snapshot
                    Log.emit(.warning, "\(photo.displayName): optional stage skipped: \(message)")
                    reports.append(StageReport(plugin: stage.plugin.id, status: .skipped, seconds: clock.secondsSince, message: message))
                } else {
                    reports.append(StageReport(plugin: stage.plugin.id, status: .failed, seconds: clock.secondsSince, message: message))
                    throw StageFailure(reports: reports, message: message)
                }
            }
        }
        return reports
    }

    private func checkOutputs(of stage: ValidatedStage, in photo: Photo) throws {
        for output in stage.plugin.outputs where !output.optional && photo.image(output.role) == nil {
            throw MatteboxError("plugin \(stage.plugin.id) declared output `\(output.role)` but did not produce it")
        }
    }
}
