import Dispatch
import Foundation

/// Ctrl-C during a batch: instead of dying mid-line, the batch says it was
/// interrupted, what had finished, that those outputs are kept, and that
/// `--resume` continues, then exits 130 as a shell expects. A batch started
/// with SIGINT ignored (a script's `&`) keeps ignoring it.
final class BatchInterruption {
    private let source: DispatchSourceSignal?

    /// `summary` says what has finished when the signal comes; `output` is the batch's folder;
    /// `cleanUp` runs before the exit (the inference process stopped, its socket folder removed).
    init(output: String, summary: @escaping @Sendable () -> String, cleanUp: @escaping @Sendable () -> Void = {}) {
        // The signal is caught by the dispatch source, so its default action is turned off; a batch
        // whose SIGINT was ignored already keeps it so.
        let previous = signal(SIGINT, SIG_IGN)
        func address(_ handler: __sighandler_t?) -> Int { handler.map { unsafeBitCast($0, to: Int.self) } ?? 0 }
        guard address(previous) != address(SIG_IGN) else {
            source = nil
            return
        }
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler {
            let words = "\ninterrupted: \(summary()); the photos written into \(output) are kept. "
                + "Run the same command with --resume to continue where it stopped.\n"
            FileHandle.standardError.write(Data(words.utf8))
            cleanUp()
            exit(130)
        }
        source.resume()
        self.source = source
    }

    /// The batch is over: Ctrl-C does what it did before.
    func end() {
        guard let source else { return }
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
