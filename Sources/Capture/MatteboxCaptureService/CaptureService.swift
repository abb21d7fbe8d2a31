import Foundation
import MatteboxCapture
import MatteboxCore
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxPressure

/// The composition of the capture flow, camera → session → pipeline → writer
/// (and, with a `MovieFileOutput`, movies and Live Photo movies through FFmpeg),
/// made in one place for every front end (`mattebox capture`, the camera app):
/// it validates the pipeline against the plugins, prepares the mirroring
/// stage, and starts a session that delivers its photos through them.
package enum CaptureService {
    /// A session on `camera` (or the default camera) whose photos go through
    /// `pipeline` (nil: no stages) and are written by `writer`.
    package static func makeSession(
        cameras: [CameraDevice], camera: CameraDevice? = nil, pipeline: PipelineSource?, registry: PluginRegistry,
        writer: PhotoWriter, movieOutput: MovieFileOutput? = nil, pressureMonitor: PressureMonitor? = nil,
        pressurePolicy: CaptureSession.PressurePolicy = .init(), queueMemory: Int = CaptureSession.defaultQueueMemory
    ) throws -> CaptureSession {
        let delivery = try makeDelivery(pipeline: pipeline, registry: registry, writer: writer)
        return try CaptureSession(
            cameras: cameras, camera: camera, delivery: delivery, movieOutput: movieOutput, pressureMonitor: pressureMonitor,
            pressurePolicy: pressurePolicy, queueMemory: queueMemory)
    }

    /// The pipeline and writer behind a session, for callers that build the session themselves.
    package static func makeDelivery(pipeline: PipelineSource?, registry: PluginRegistry, writer: PhotoWriter) throws
        -> PipelineDelivery
    {
        let runner = try pipeline.map { try PipelineRunner(pipeline: $0.validate(registry: registry), registry: registry) }
        return PipelineDelivery(runner: runner, mirroring: try mirroringRunner(registry), writer: writer)
    }

    /// The Mirroring plugin set to mirror, when it is installed.
    static func mirroringRunner(_ registry: PluginRegistry) throws -> PipelineRunner? {
        guard registry.plugin(mirroringPlugin) != nil else { return nil }
        let source = PipelineSource(
            text: """
                stages:
                  - plugin: \(mirroringPlugin)
                    params: { policy: mirrored, apply: pixels }
                """,
            path: "(front-camera mirroring)")
        return try PipelineRunner(pipeline: source.validate(registry: registry), registry: registry)
    }

    static let mirroringPlugin = "org.mattebox.mirroring"
}
