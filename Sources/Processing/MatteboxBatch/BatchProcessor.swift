import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxImageIO
import MatteboxPairedMedia
import MatteboxPipeline
import MatteboxRuntime

/// How `mattebox process` writes what the pipeline produced.
package struct BatchOptions: Sendable, Codable {
    package var outputDirectory: URL
    /// `--format`; nil: `PhotoWriter.defaultFormatRule`.
    package var format: OutputFormat?
    /// Nil: the format's own default (92 for JPEG, 75 for HEIC, 90 for AVIF).
    package var quality: Int?
    /// Encode every image again, even those a HEIF input holds unchanged.
    package var reencode = false
    /// Leave the HDR gain map out of every output: an SDR photo (`--hdr drop`).
    package var dropHDR = false
    /// A JPEG output with depth written as Dynamic Depth even where the input's own MPF or GDepth bytes hold it.
    package var dynamicDepth = false
    /// Overrides the camera position read from EXIF (for mirroring policies).
    package var cameraPosition: CameraPosition?
    /// Auxiliary images to attach to the input photo, by role.
    package var auxiliaryInputs: [ImageRole: URL] = [:]
    /// Also write every auxiliary image as `<stem>.<role>.png`.
    package var writeAuxiliaryPNGs = false
    /// Attach `NAME.<role>.png|pfm|tif` files beside each photo as its auxiliary images
    /// (found when the inputs are collected: `BatchInput.sidecars`).
    package var sidecars = true
    /// The roles sidecars bring to at least one photo of the run (stages may ask for them).
    package var sidecarRoles: Set<ImageRole> = []
    /// Encode the primary while the matte stages run (`PhotoWriter.encodeAhead`):
    /// worth it when a core would otherwise sit idle, so set when fewer photos are in flight than cores.
    package var encodeAhead = false
    /// `--shard K/N`: the records of what was written go to this shard's own manifest file,
    /// so shards sharing an output folder never append to the same file.
    package var shard: BatchShard?

    /// The images photos arrive with besides the primary, for pipeline validation.
    package var providedRoles: Set<ImageRole> { sidecarRoles.union(auxiliaryInputs.keys) }
    /// What outputs may replace: never an input; existing files per `--overwrite`/`--no-clobber`.
    package var safety = OutputSafety()

    package init(outputDirectory: URL) { self.outputDirectory = outputDirectory }
}

/// The outcome of one photo, as `--json` and `--timings` report it.
package struct PhotoOutcome: Sendable, Codable {
    /// `skipped`: `--resume` found its outputs complete for the same content and pipeline.
    package enum Status: String, Sendable, Codable { case ok, failed, skipped }

    package var input: String
    package var status: Status
    /// SHA-256 of the input file's bytes, as the resume manifest records it.
    package var inputSHA256: String?
    package var output: String?
    /// Files written beside the output: auxiliary PNGs, the Live Photo movie.
    package var auxiliaryOutputs: [String] = []
    /// Notes stages left (e.g. why no portrait matte was made).
    package var notes: [String: String] = [:]
    package var error: String?
    /// Set when the photo was lost with its worker process: why (crash, timeout).
    package var workerFailure: String?
    /// The signal that killed the worker (11 = SIGSEGV, 4/5 = a Swift trap).
    package var workerSignal: Int32?
    /// The worker passed the per-photo time limit and was killed.
    package var timedOut: Bool?
    package var decodeSeconds: Double = 0
    package var stages: [StageReport] = []
    package var encodeSeconds: Double = 0
    /// The worker's peak resident memory while decoding and while encoding and writing, MiB (`PeakMemory`).
    package var decodePeakMiB: Double?
    package var encodePeakMiB: Double?

    package init(input: String, status: Status) {
        self.input = input
        self.status = status
    }
}

/// Runs photos from files through a pipeline and writes the results. Each photo
/// succeeds or fails on its own: a bad file or a failing plugin is reported for
/// that photo and the next one goes on. Originals are only ever read; outputs
/// are written atomically.
package struct BatchProcessor: Sendable {
    package let runner: PipelineRunner
    package let options: BatchOptions

    private let writer: PhotoWriter

    package init(runner: PipelineRunner, options: BatchOptions) {
        self.runner = runner
        self.options = options
        var writer = PhotoWriter(
            directory: options.outputDirectory, format: options.format, quality: options.quality,
            writeAuxiliaryPNGs: options.writeAuxiliaryPNGs, safety: options.safety,
            manifest: ResumeManifest(outputDirectory: options.outputDirectory, shard: options.shard?.position))
        writer.reencode = options.reencode
        writer.dynamicDepth = options.dynamicDepth
        self.writer = writer
    }

    package func process(_ input: URL, outputStem: String, sidecars: [ImageRole: URL] = [:], movie: URL? = nil) -> PhotoOutcome {
        var outcome = PhotoOutcome(input: input.path, status: .failed)
        do {
            var clock = ContinuousClock.now
            let counted = PeakMemory.reset()
            // What the input is, first: a FIFO or a device must fail now, not block or be read forever.
            try InputFile.checkReadable(input)
            outcome.inputSHA256 = try? ContentHash.sha256(photoAt: input, sidecars: sidecars)
            var photo = try ImageDecoder.decodePhoto(at: input)
            if let position = options.cameraPosition { photo.metadata.capture.position = position }
            for (role, url) in sidecars where options.auxiliaryInputs[role] == nil {
                photo.setAuxiliary(try Sidecars.read(url, role: role), for: role)
            }
            for (role, url) in options.auxiliaryInputs {
                photo.setAuxiliary(try ImageDecoder.decodeAuxiliaryImage(at: url), for: role)
            }
            if options.dropHDR { HDRChoice.drop(from: &photo) }
            outcome.decodeSeconds = clock.secondsSince
            outcome.decodePeakMiB = counted ? PeakMemory.mebibytes() : nil
            let written: PhotoWriter.Written
            do {
                (outcome.stages, written) = try writer.run(
                    &photo, through: runner, stem: outputStem, movie: movie, encodeAhead: options.encodeAhead
                ) { processed in
                    outcome.notes = processed.metadata.notes
                    clock = ContinuousClock.now
                    PeakMemory.reset()
                }
            } catch let failure as StageFailure {
                outcome.stages = failure.reports
                throw MatteboxError(failure.message)
            }
            outcome.encodePeakMiB = counted ? PeakMemory.mebibytes() : nil
            outcome.notes.merge(written.notes) { stage, _ in stage }
            outcome.output = written.output.path
            outcome.auxiliaryOutputs = (written.auxiliary + [written.movie].compactMap { $0 }).map(\.path)
            outcome.encodeSeconds = clock.secondsSince
            outcome.status = .ok
        } catch let exists as OutputExists {
            outcome.status = .skipped
            outcome.error = exists.description
        } catch let error as MatteboxError {
            // The one place a photo's error gets its file name, unless it already has it.
            outcome.error = error.message.contains(input.path) ? error.description : "\(input.path): \(error)"
        } catch {
            outcome.error = "\(input.path): \(error)"
        }
        // The photo, its encoder and its working frames are gone: their pages go back before the next photo.
        FreedMemory.release()
        return outcome
    }
}
