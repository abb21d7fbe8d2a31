import Foundation
import MatteboxBatch
import MatteboxPipeline
import MatteboxRuntime

/// What `mattebox process` shows while a batch runs: a progress bar redrawn on
/// standard error when it is a terminal (done, failed, rate, ETA), and a plain
/// progress line at most every five seconds otherwise, for logs.
// Unchecked: only called from the scheduler's completion callback, one call at a time.
final class BatchProgress: @unchecked Sendable {
    private let total: Int
    private let alreadyDone: Int
    private let start = ContinuousClock.now
    private let terminal = isatty(STDERR_FILENO) == 1
    private var done = 0
    private var failed = 0
    private var lastLine = ContinuousClock.now

    /// `--json-progress`: a JSON line per finished photo instead of the bar.
    private let jsonLines: Bool

    init(total: Int, skipped: Int, jsonLines: Bool = false) {
        self.total = total
        alreadyDone = skipped
        self.jsonLines = jsonLines
    }

    /// One line of `--json-progress`, on standard error.
    struct Line: Encodable {
        var schemaVersion = JSONOutput.schemaVersion
        var input: String
        var status: String
        var done: Int
        var failed: Int
        var total: Int
        var photosPerSecond: Double
        var etaSeconds: Double?
    }

    /// Records one finished photo; `print` writes its own line first (to standard output).
    func update(_ outcome: PhotoOutcome, print: () -> Void) {
        done += 1
        if outcome.status == .failed { failed += 1 }
        if jsonLines {
            print()
            let elapsed = start.secondsSince, rate = elapsed > 0 ? Double(done) / elapsed : 0
            let line = Line(
                input: outcome.input, status: outcome.status.rawValue, done: done, failed: failed, total: total,
                photosPerSecond: rate, etaSeconds: rate > 0 ? Double(total - done) / rate : nil)
            if let data = try? JSONOutput.encode(line, pretty: false) {
                FileHandle.standardError.write(data + Data("\n".utf8))
            }
            return
        }
        if terminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        print()
        fflush(nil)
        guard Log.currentThreshold < .error else { return }  // -q: no progress
        if terminal {
            FileHandle.standardError.write(Data(bar().utf8))
        } else if lastLine.secondsSince >= 5 || done == total {
            lastLine = .now
            FileHandle.standardError.write(Data("progress: \(summary())\n".utf8))
        }
    }

    func finish() {
        if terminal, !jsonLines { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }

    private func bar() -> String {
        let width = 24
        let filled = total == 0 ? width : width * done / total
        return "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
            + summary()
    }

    /// "3/10 finished (3 succeeded, 0 failed), …": what the progress line says.
    func summary() -> String {
        let elapsed = start.secondsSince
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        // "done" would read as succeeded: these are the photos finished either way, then how they ended.
        var text = "\(done)/\(total) finished (\(done - failed) succeeded, \(failed) failed)"
        if alreadyDone > 0 { text += ", \(alreadyDone) already done" }
        text += String(format: ", %.2f photos/s", rate)
        if rate > 0, done < total { text += ", ETA \(Self.duration(Double(total - done) / rate))" }
        return text
    }

    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole >= 3600 { return "\(whole / 3600)h\(String(format: "%02d", whole % 3600 / 60))m" }
        if whole >= 60 { return "\(whole / 60)m\(String(format: "%02d", whole % 60))s" }
        return "\(whole)s"
    }
}
