import Foundation

/// A long-lived helper process spoken to in lines over its standard input and
/// output, with a deadline on every answer. The batch runner keeps plugins in
/// such processes so that a plugin that crashes or hangs costs one photo, not
/// the batch: the caller learns how the process ended and starts another.
// Unchecked: one thread owns each conversation (a batch slot, a test).
package final class LineChannelProcess: @unchecked Sendable {
    /// Why no answer came.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)
        case timedOut(Double)
        case failedToStart(String)

        package var description: String {
            switch self {
            case .exited(let code): return "worker exited with status \(code)"
            case .signalled(let signal): return "worker killed by signal \(signal) (\(Self.signalName(signal)))"
            case .timedOut(let seconds): return String(format: "timed out after %.0f s; worker killed", seconds)
            case .failedToStart(let reason): return "cannot start worker: \(reason)"
            }
        }

        static func signalName(_ signal: Int32) -> String {
            switch signal {
            case SIGSEGV: return "SIGSEGV"
            case SIGABRT: return "SIGABRT"
            case SIGILL: return "SIGILL (a Swift trap)"
            case SIGTRAP: return "SIGTRAP (a Swift trap)"
            case SIGBUS: return "SIGBUS"
            case SIGFPE: return "SIGFPE"
            case SIGKILL: return "SIGKILL"
            case SIGTERM: return "SIGTERM"
            case SIGINT: return "SIGINT, as Ctrl-C sends"
            case SIGHUP: return "SIGHUP"
            case SIGPIPE: return "SIGPIPE"
            default: return strsignal(signal).map { String(cString: $0) } ?? "an unnamed signal"
            }
        }
    }

    package let pid: pid_t
    private let child: SpawnedChild
    private let toChild: Int32
    private let fromChild: Int32
    private var pending: [UInt8] = []
    private var ended: Failure?
    private var inputOpen = true

    /// Starts `arguments[0]` with `arguments` (through `SpawnedChild`); standard error is inherited.
    package init(arguments: [String], environment: [String: String] = [:]) throws(Failure) {
        do {
            child = try SpawnedChild.spawn(arguments, environment: environment, input: .pipe, output: .pipe, errors: .inherit)
        } catch {
            throw .failedToStart(error.message)
        }
        pid = child.pid
        toChild = child.input!
        fromChild = child.output!
    }

    deinit {
        if inputOpen { Foundation.close(toChild) }
        Foundation.close(fromChild)
        if ended == nil { _ = Foundation.kill(pid, SIGKILL); _ = reap() }
    }

    /// Sends one line (a newline is added).
    package func send(_ line: Data) throws(Failure) {
        if let ended { throw ended }
        var bytes = [UInt8](line)
        bytes.append(0x0A)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { write(toChild, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw finish()
            }
            offset += written
        }
    }

    /// The next line the process writes, without its newline. If none comes
    /// within `timeout` seconds the process is killed; if it ends first, how.
    package func receiveLine(timeout: Double) throws(Failure) -> Data {
        if let ended { throw ended }
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = Data(pending[..<newline])
                pending.removeSubrange(...newline)
                return line
            }
            let remaining = deadline - ContinuousClock.now
            let milliseconds = remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000
            if milliseconds <= 0 {
                _ = Foundation.kill(pid, SIGKILL)
                _ = reap()
                ended = .timedOut(timeout)
                throw Failure.timedOut(timeout)
            }
            var poller = pollfd(fd: fromChild, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(milliseconds, 60_000)))
            if ready < 0 && errno != EINTR { throw finish() }
            guard ready > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { read(fromChild, $0.baseAddress!, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw finish() }
            pending.append(contentsOf: chunk[..<count])
        }
    }

    /// Closes the process's input (asking it to end) and waits for it.
    @discardableResult
    package func close() -> Failure {
        if let ended { return ended }
        Foundation.close(toChild)
        inputOpen = false
        return finish()
    }

    /// Kills the process now and reaps it.
    @discardableResult
    package func kill() -> Failure {
        if let ended { return ended }
        _ = Foundation.kill(pid, SIGKILL)
        return finish()
    }

    private func finish() -> Failure {
        if let ended { return ended }
        let result = reap()
        ended = result
        return result
    }

    private func reap() -> Failure {
        switch child.wait() {
        case .exited(let code): return .exited(code)
        case .signalled(let signal): return .signalled(signal)
        }
    }
}
