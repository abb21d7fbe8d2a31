import Foundation
import MatteboxCapture
import MatteboxCore
import MatteboxHEIF
import MatteboxPipeline
import MatteboxRuntime

/// Runs each photo a capture session took through the pipeline and writes it
/// (`capture-<time>-<id>` in the writer's folder). Mirroring a front-camera
/// photo, when its settings ask for it, is done here by the Mirroring plugin
/// before the pipeline: the one place a captured photo is mirrored (a
/// pipeline's own Mirroring stage comes later and has the last word).
package struct PipelineDelivery: PhotoDelivery {
    package var runner: PipelineRunner?
    /// The Mirroring plugin with `policy: mirrored`; nil when it is not installed.
    package var mirroring: PipelineRunner?
    package var writer: PhotoWriter

    package init(runner: PipelineRunner?, mirroring: PipelineRunner?, writer: PhotoWriter) {
        self.runner = runner
        self.mirroring = mirroring
        self.writer = writer
    }

    package func deliver(_ captured: CapturedPhoto, processed: @Sendable () -> Void) throws -> DeliveredPhoto {
        var photo = captured.photo
        var stages: [StageReport] = []
        // The primary is encoded while the matte stages run; nothing of it outlives this photo.
        var ahead: PrimaryEncodeAhead?
        defer { ahead?.wait() }
        do {
            if captured.mirroringRequested {
                guard let mirroring else {
                    throw MatteboxError(
                        "mirroring the front camera needs the org.mattebox.mirroring plugin, which was not found",
                        hint: "`mattebox plugins list` shows what is installed")
                }
                stages += try mirroring.run(&photo)
            }
            if let runner {
                stages += try runner.run(
                    &photo, skippingStagesProviding: captured.skippedRoles, reason: captured.skipReason,
                    primaryIsFinal: { ahead = writer.encodeAhead($0) })
            }
        } catch let failure as StageFailure {
            throw MatteboxError("photo \(captured.id) from \(captured.cameraPath): \(failure.message)")
        } catch let error as MatteboxError {
            throw MatteboxError("photo \(captured.id) from \(captured.cameraPath): \(error.description)")
        }
        processed()
        let stem = "capture-\(Self.stamp(photo.metadata.capture.timestamp ?? Date()))-\(captured.id)"
        let written = try writer.write(photo, stem: stem, encodedAhead: ahead)
        return DeliveredPhoto(
            output: written.output, auxiliaryOutputs: written.auxiliary, stages: stages,
            notes: photo.metadata.notes.merging(written.notes) { stage, _ in stage },
            absenceReasons: Dictionary(uniqueKeysWithValues: photo.absenceReasons.map { ($0.key.rawValue, $0.value) }))
    }

    private static func stamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss-SSS"
        return formatter.string(from: date)
    }
}
