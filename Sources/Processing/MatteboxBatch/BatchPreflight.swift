import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxRuntime

/// The checks a photo passes before any work, the same for `--dry-run` and
/// a real run, so a dry run refuses exactly what the run would and the run
/// refuses before spending time on the photo: the input is a readable
/// regular file a reader takes, and every file its output may become (the
/// format asked for, else JPEG or HEIC, as the stages decide) may be written.
package enum BatchPreflight {
    package enum Verdict: Sendable, Equatable {
        /// Ready; `output` as a dry run shows it (`IMG.jpg|heic` when the stages decide the format).
        case process(output: String)
        /// Its output exists and `--no-clobber` keeps it.
        case skip(output: String)
        case refuse(output: String, reason: String)
    }

    package static func check(_ input: BatchInput, options: BatchOptions, manifest: ResumeManifest) -> Verdict {
        let formats = PhotoWriter.possibleFormats(asked: options.format)
        let shown = options.outputDirectory.appendingPathComponent(
            "\(input.stem).\(formats.map(\.fileExtension).joined(separator: " or ."))").path
        do {
            try InputFile.checkReadable(input.url)
            _ = try ImageContainers.reader(for: input.url)
            for format in formats {
                let candidate = PhotoWriter.destination(in: options.outputDirectory, stem: input.stem, format: format)
                do {
                    try options.safety.check(candidate, source: input.url, ownership: manifest.ownership)
                } catch let error as MatteboxError where formats.count > 1 {
                    throw MatteboxError(
                        "\(error.message) (the output is written as JPEG or HEIC as the stages decide, so either name must be free)",
                        hint: (error.hint.map { $0 + "; " } ?? "") + "--format fixes the format")
                }
            }
            return .process(output: shown)
        } catch let exists as OutputExists {
            return .skip(output: exists.path)
        } catch {
            return .refuse(output: shown, reason: "\(error)")
        }
    }

    /// The outcome a refused or skipped photo is reported with, as if it had run.
    package static func outcome(of input: BatchInput, _ verdict: Verdict) -> PhotoOutcome? {
        switch verdict {
        case .process: return nil
        case .skip(let output):
            var outcome = PhotoOutcome(input: input.url.path, status: .skipped)
            outcome.error = OutputExists(path: output).description
            return outcome
        case .refuse(_, let reason):
            var outcome = PhotoOutcome(input: input.url.path, status: .failed)
            outcome.error = reason.contains(input.url.path) ? reason : "\(input.url.path): \(reason)"
            return outcome
        }
    }
}
