import Foundation
import MatteboxBatch
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxRuntime

/// `process --dry-run`: what would happen to each photo, decided by the
/// checks a run makes first (`BatchPreflight`: the input is a readable regular
/// file, the output may be written there; `--resume` has it done already),
/// with nothing decoded or written; it exits as the run would.
struct DryRun {
    struct Entry: Encodable {
        enum Action: String, Encodable { case process, skip, refuse }
        var input: String
        var action: Action
        var output: String?
        var reason: String?
    }

    var entries: [Entry] = []

    init(
        inputs: [BatchInput], queue: [BatchInput], skipped: [String: PhotoOutcome], options: BatchOptions,
        manifest: ResumeManifest
    ) {
        let queued = Set(queue.map(\.stem))
        for input in inputs {
            if let done = skipped[input.stem] {
                entries.append(Entry(input: input.url.path, action: .skip, output: done.output, reason: "already done (--resume)"))
                continue
            }
            guard queued.contains(input.stem) else { continue }
            switch BatchPreflight.check(input, options: options, manifest: manifest) {
            case .process(let output): entries.append(Entry(input: input.url.path, action: .process, output: output, reason: nil))
            case .skip(let output):
                entries.append(Entry(input: input.url.path, action: .skip, output: output, reason: "output exists (--no-clobber)"))
            case .refuse(let output, let reason):
                entries.append(Entry(input: input.url.path, action: .refuse, output: output, reason: reason))
            }
        }
    }

    /// A dry run exits as the run would: 1 when a photo would be refused.
    var refused: Bool { entries.contains { $0.action == .refuse } }

    func print(json: Bool) throws {
        if json { return try JSONOutput.print(["photos": entries]) }
        for entry in entries {
            switch entry.action {
            case .process: Swift.print("process \(entry.input) -> \(entry.output ?? "")")
            case .skip: Swift.print("skip    \(entry.input): \(entry.reason ?? "")")
            case .refuse: Swift.print("refuse  \(entry.input): \(entry.reason ?? "")")
            }
        }
        let count = { (action: Entry.Action) in entries.filter { $0.action == action }.count }
        Swift.print("dry run: \(count(.process)) to process, \(count(.skip)) to skip, \(count(.refuse)) refused; nothing was written")
    }
}
