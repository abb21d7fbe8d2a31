import Foundation
import MatteboxPipeline
import MatteboxRuntime
import Synchronization

extension ResumeManifest {
    /// Splits inputs into those to run and those `--resume` may skip (their
    /// manifest entry matches this content and pipeline, and every output is
    /// there), with a skipped outcome for each by stem. Files a killed writer
    /// left half-written for the rest are removed.
    package func partition(_ inputs: [BatchInput], pipelineSHA256 fingerprint: String)
        -> (queue: [BatchInput], skipped: [String: PhotoOutcome])
    {
        let done = Mutex<[String: PhotoOutcome]>([:])
        let root = outputFolder
        DispatchQueue.concurrentPerform(iterations: inputs.count) { index in
            let input = inputs[index]
            guard let entry = completedEntry(
                stem: input.stem, pipelineSHA256: fingerprint, hash: { try ContentHash.sha256(photoAt: input.url, sidecars: input.sidecars) })
            else { return }
            var outcome = PhotoOutcome(input: input.url.path, status: .skipped)
            outcome.inputSHA256 = entry.inputSHA256
            let outputs = entry.outputs.map { root.appendingPathComponent($0).path }
            outcome.output = outputs.first
            outcome.auxiliaryOutputs = Array(outputs.dropFirst())
            done.withLock { $0[input.stem] = outcome }
        }
        let skipped = done.withLock { $0 }
        let queue = inputs.filter { skipped[$0.stem] == nil }
        for input in queue {
            AtomicFile.removeUnfinished(startingWith: root.appendingPathComponent(input.stem))
        }
        return (queue, skipped)
    }

    /// Adds a finished photo to the manifest (after its files are in place);
    /// a failure to record only costs a redo, so it is a warning.
    package func record(_ outcome: PhotoOutcome, stem: String, pipelineSHA256 fingerprint: String) {
        guard outcome.status == .ok, let hash = outcome.inputSHA256, let output = outcome.output else { return }
        let root = outputFolder.path.hasSuffix("/") ? outputFolder.path : outputFolder.path + "/"
        let relative = ([output] + outcome.auxiliaryOutputs).map { $0.hasPrefix(root) ? String($0.dropFirst(root.count)) : $0 }
        do {
            try record(.init(stem: stem, inputSHA256: hash, pipelineSHA256: fingerprint, outputs: relative))
        } catch {
            Log.emit(.warning, "\(error); --resume will redo \(outcome.input)")
        }
    }
}
