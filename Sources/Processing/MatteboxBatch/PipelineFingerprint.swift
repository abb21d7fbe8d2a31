import Foundation
import MatteboxCore
import MatteboxPipeline
import MatteboxRuntime

/// A digest of everything that decides a batch's outputs besides the input
/// itself: the Mattebox version, the pipeline file's text, each stage's plugin
/// and version, and the output options. `--resume` re-runs a photo when it differs.
package enum PipelineFingerprint {
    package static func sha256(of pipeline: ValidatedPipeline, options: BatchOptions) throws -> String {
        var lines = [
            "mattebox \(MatteboxVersion.current)",
            "pipeline \(pipeline.file.contents)",
        ]
        lines += pipeline.stages.map { "stage \($0.plugin.id) \($0.plugin.version) \($0.plugin.abiVersion)" }
        lines.append("format \(options.format?.rawValue ?? "auto") quality \(options.quality.map(String.init) ?? "default")")
        lines.append("camera \(options.cameraPosition?.rawValue ?? "exif") aux-png \(options.writeAuxiliaryPNGs)")
        if options.dropHDR { lines.append("hdr drop") }
        for (role, url) in options.auxiliaryInputs.sorted(by: { $0.key < $1.key }) {
            lines.append("aux \(role.rawValue) \(try ContentHash.sha256(fileAt: url))")
        }
        return ContentHash.sha256(Data(lines.joined(separator: "\n").utf8))
    }
}
