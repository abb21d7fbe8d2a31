import ArgumentParser
import MatteboxCapture

/// `--queue-memory`: what photos waiting to be processed may hold, for
/// `capture` and `serve` alike.
struct CaptureQueueOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "MiB the photos waiting to be processed may hold (each its pixels: 3.7 MB at 1280x960); a press past it is refused until one is finished.",
            valueName: "MiB"))
    var queueMemory: Int = CaptureSession.defaultQueueMemory >> 20

    func validate() throws {
        guard queueMemory >= 1 else { throw ValidationError("--queue-memory takes MiB, at least 1, not \(queueMemory)") }
    }

    var bytes: Int { queueMemory << 20 }
}
