import ArgumentParser
import MatteboxVision

/// `mattebox inference-server`: the process `mattebox process -j N` runs the
/// networks of all its workers in (internal; see `InferenceService`).
struct InferenceServerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inference-server", abstract: "Run the networks of a batch's workers (internal).", shouldDisplay: false)

    @Option(help: "The Unix socket to listen on.") var socket: String

    func run() throws {
        try InferenceService.serve(socketPath: socket)
    }
}
