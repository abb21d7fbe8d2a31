import Foundation
import MatteboxBatch
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxRuntime

/// `process --dry-run`: what would happen to each photo, decided by the same
/// checks a run makes (the input is a readable regular file, the output may be
/// written there, `--resume` has it done already), with nothing decoded or
/// written.
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
            let extensionName = options.format?.fileExtension ?? "jpg|heic"
            let output = options.outputDirectory.appendingPathComponent("\(input.stem).\(extensionName)")
            do {
                try InputFile.checkReadable(input.url)
                _ = try ImageContainers.reader(for: input.url)
                for format in options.format.map({ [$0] }) ?? [.jpeg, .heic] {
                    let candidate = options.outputDirectory.appendingPathComponent("\(input.stem).\(format.fileExtension)")
                    try options.safety.check(candidate, source: input.url, ownership: manifest.ownership)
                }
                entries.append(Entry(input: input.url.path, action: .process, output: output.path, reason: nil))
            } catch let exists as OutputExists {
                entries.append(Entry(input: input.url.path, action: .skip, output: exists.path, reason: "output exists (--no-clobber)"))
            } catch {
                entries.append(Entry(input: input.url.path, action: .refuse, output: output.path, reason: "\(error)"))
            }
        }
    }

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
