import Foundation
import MatteboxRuntime
import Testing

/// `ChildProcess`, which isolates untrusted work (plugin scans, converters):
/// what a child said and how it ended come back whole, a child that passes
/// its limit is killed, and one that cannot start is named.
@Suite struct ChildProcessTests {
    @Test func outputErrorsAndExitCodeComeBack() {
        guard case .exited(let code, let output, let errors) = ChildProcess(
            arguments: ["/bin/sh", "-c", "echo out; echo err >&2; exit 3"]).run(timeout: 60)
        else { Issue.record("did not exit"); return }
        #expect(code == 3)
        #expect(String(decoding: output, as: UTF8.self) == "out\n")
        #expect(String(decoding: errors, as: UTF8.self) == "err\n")
    }

    @Test func moreOutputThanAPipeHoldsIsReadWhole() {
        // 1 MiB on each stream: a reader that waited for the exit first would deadlock on the full pipes.
        guard case .exited(0, let output, let errors) = ChildProcess(
            arguments: ["/bin/sh", "-c", "head -c 1048576 /dev/zero; head -c 1048576 /dev/zero >&2"]).run(timeout: 60)
        else { Issue.record("did not exit cleanly"); return }
        #expect(output.count == 1_048_576 && errors.count == 1_048_576)
    }

    @Test func aSignalIsReportedAsTheSignal() {
        let outcome = ChildProcess(arguments: ["/bin/sh", "-c", "kill -TERM $$"]).run(timeout: 60)
        guard case .signalled(let signal) = outcome else { Issue.record("\(outcome)"); return }
        #expect(signal == SIGTERM)
    }

    @Test func aChildPastItsLimitIsKilledAndReaped() throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(getpid())-\(UUID().uuidString).pid")
        defer { try? FileManager.default.removeItem(at: marker) }
        let outcome = ChildProcess(arguments: ["/bin/sh", "-c", "echo $$ > \(marker.path); exec sleep 600"]).run(timeout: 0.5)
        guard case .timedOut = outcome else { Issue.record("\(outcome)"); return }
        let pid = try #require(Int32(String(decoding: try Data(contentsOf: marker), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
        // Killed and reaped: no such process remains (not even a zombie).
        #expect(kill(pid, 0) != 0 && errno == ESRCH, "process \(pid) is still there")
    }

    @Test func aProgramThatCannotStartIsNamed() {
        let outcome = ChildProcess(arguments: ["/nonexistent/helper", "--flag"]).run(timeout: 60)
        guard case .failedToStart(let reason) = outcome else { Issue.record("\(outcome)"); return }
        #expect(reason.contains("/nonexistent/helper"), "\(reason)")
    }
}

/// A worker's death names its signal once, in words (issue 46: "signal 2 (signal 2)").
@Suite struct SignalNameTests {
    @Test func aSignalIsNamedOnceInWords() {
        let interrupted = LineChannelProcess.Failure.signalled(SIGINT).description
        #expect(interrupted == "worker killed by signal 2 (SIGINT, as Ctrl-C sends)")
        let other = LineChannelProcess.Failure.signalled(SIGUSR1).description
        #expect(!other.contains("(signal ") && other.hasPrefix("worker killed by signal \(SIGUSR1) ("), "\(other)")
    }
}
