import ArgumentParser
import MatteboxBatch
import MatteboxPipeline

/// `mattebox worker`: the process `mattebox process` runs plugins in. Not for
/// people to call; it speaks JSON lines on standard input and output.
struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker", abstract: "Run photos for `mattebox process` (internal).", shouldDisplay: false)

    func run() throws {
        let status = BatchWorker.serve()
        if status != 0 { throw ExitCode(status) }
    }
}
