import ArgumentParser
import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxPluginHost

/// `mattebox process`: runs a pipeline file over photos and writes the results.
struct ProcessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "process",
        abstract: "Run a pipeline over photos (JPEG, PNG, TIFF, WebP, HEIC) and write the results.",
        discussion: """
            Each photo succeeds or fails on its own; the exit status is 1 when any photo failed. \
            Originals are never modified and outputs are written atomically. Without --pipeline, \
            photos are turned upright from their EXIF orientation.
            """)

    @Argument(help: "Photos to process.") var photos: [String]
    @Option(name: .shortAndLong, help: "Folder to write results to (created if missing).") var output: String
    @Option(help: "Pipeline file (YAML) listing the stages.") var pipeline: String?
    @Option(help: "Output format: jpeg, png or heic (heic keeps depth and mattes in the file).")
    var format: String = "jpeg"
    @Option(help: "JPEG or HEIF quality, 1-100 (default: 92 for JPEG, 75 for HEIF).") var quality: Int?
    @Option(help: "Camera position for mirroring policies: front, back, external (default: from EXIF).")
    var cameraPosition: String?
    @Option(name: .customLong("aux"), help: "Attach an auxiliary image to the photo: ROLE=FILE (e.g. depth=d.png).")
    var auxiliary: [String] = []
    @Flag(help: "Also write each auxiliary image as <name>.<role>.png.") var auxPng = false
    @Flag(help: "Print per-stage timings for every photo.") var timings = false
    @Flag(help: "Print a JSON report instead of text.") var json = false

    static let defaultPipeline = """
        # Built-in default: turn photos upright.
        stages:
          - plugin: org.mattebox.orientation
        """

    func run() throws {
        var options = BatchOptions(outputDirectory: URL(fileURLWithPath: output))
        guard let outputFormat = OutputFormat(rawValue: format) else {
            throw ValidationError("--format must be jpeg, png or heic, not \(format)")
        }
        guard quality.map({ (1...100).contains($0) }) ?? true else { throw ValidationError("--quality must be 1...100") }
        options.format = outputFormat
        options.quality = quality
        options.writeAuxiliaryPNGs = auxPng
        if let cameraPosition {
            guard let position = CameraPosition(rawValue: cameraPosition) else {
                throw ValidationError("--camera-position must be front, back or external")
            }
            options.cameraPosition = position
        }
        for item in auxiliary {
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, ImageRole(parts[0]).isValidName, parts[0] != "primary" else {
                throw ValidationError("--aux takes ROLE=FILE with a role such as depth or portraitMatte, not \(item)")
            }
            options.auxiliaryInputs[ImageRole(parts[0])] = URL(fileURLWithPath: parts[1])
        }
        if !options.auxiliaryInputs.isEmpty, photos.count > 1 {
            throw ValidationError("--aux attaches images to one photo; give exactly one photo with it")
        }

        let registry = HostEnvironment.discoverPlugins()
        let file = try pipeline.map(PipelineFile.load) ?? PipelineFile.parse(ProcessCommand.defaultPipeline, path: "(default pipeline)")
        let validated = try PipelineValidator.validate(
            file, registry: registry, providedRoles: Set(options.auxiliaryInputs.keys))
        let processor = BatchProcessor(runner: try PipelineRunner(pipeline: validated, registry: registry), options: options)

        let inputs = photos.map { URL(fileURLWithPath: $0) }
        var outcomes: [PhotoOutcome] = []
        for (index, (input, stem)) in zip(inputs, BatchProcessor.outputStems(for: inputs)).enumerated() {
            let outcome = processor.process(input, outputStem: stem)
            outcomes.append(outcome)
            if !json { report(outcome, number: index + 1, of: inputs.count) }
        }
        let failed = outcomes.filter { $0.status == .failed }.count
        if json {
            try JSONOutput.print(ProcessReport(photos: outcomes, succeeded: outcomes.count - failed, failed: failed))
        } else {
            print("\(outcomes.count - failed) succeeded, \(failed) failed")
        }
        if failed > 0 { throw ExitCode(1) }
    }

    private func report(_ outcome: PhotoOutcome, number: Int, of total: Int) {
        let prefix = "[\(number)/\(total)]"
        if let output = outcome.output {
            print("\(prefix) \(outcome.input) -> \(output)")
            for extra in outcome.auxiliaryOutputs { print("      + \(extra)") }
            for (name, note) in outcome.notes.sorted(by: { $0.key < $1.key }) { print("      note \(name): \(note)") }
        } else {
            print("\(prefix) FAILED \(outcome.error ?? outcome.input)")
        }
        guard timings else { return }
        print(String(format: "      decode %8.1f ms", outcome.decodeSeconds * 1000))
        for stage in outcome.stages {
            print(String(format: "      %@ %8.1f ms  %@", stage.plugin.padding(toLength: 28, withPad: " ", startingAt: 0),
                         stage.seconds * 1000, stage.status.rawValue))
        }
        if outcome.status == .ok { print(String(format: "      encode %8.1f ms", outcome.encodeSeconds * 1000)) }
    }
}

struct ProcessReport: Encodable {
    var photos: [PhotoOutcome]
    var succeeded: Int
    var failed: Int
}
