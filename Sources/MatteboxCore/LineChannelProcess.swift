import Foundation

/// A long-lived helper process spoken to in lines over its standard input and
/// output, with a deadline on every answer. The batch runner keeps plugins in
/// such processes so that a plugin that crashes or hangs costs one photo, not
/// the batch: the caller learns how the process ended and starts another.
public final class LineChannelProcess: @unchecked Sendable {
    /// Why no answer came.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)
        case timedOut(Double)
        case failedToStart(String)

        public var description: String {
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
            default: return "signal \(signal)"
            }
        }
    }

    public let pid: pid_t
    private static let spawnLock = NSLock()
    private let toChild: Int32
    private let fromChild: Int32
    private var pending: [UInt8] = []
    private var ended: Failure?
    private var inputOpen = true

    /// Starts `arguments[0]` with `arguments`; standard error is inherited.
    public init(arguments: [String], environment: [String: String] = [:]) throws(Failure) {
        // A write to a worker that just died must be an error, not a SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        // Pipes are made and the child spawned under one lock, so no other
        // worker started at the same moment inherits these pipe ends (which
        // would hide this worker's exit from its reader).
        Self.spawnLock.lock()
        defer { Self.spawnLock.unlock() }
        var input: [Int32] = [0, 0], output: [Int32] = [0, 0]
        guard pipe(&input) == 0 else { throw .failedToStart(String(cString: strerror(errno))) }
        guard pipe(&output) == 0 else {
            Foundation.close(input[0]); Foundation.close(input[1])
            throw .failedToStart(String(cString: strerror(errno)))
        }
        for descriptor in input + output { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input[0], 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)

        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let status = posix_spawn(&child, arguments[0], &actions, nil, argv, envp)
        Foundation.close(input[0])
        Foundation.close(output[1])
        guard status == 0 else {
            Foundation.close(input[1]); Foundation.close(output[0])
            throw .failedToStart("\(arguments[0]): \(String(cString: strerror(status)))")
        }
        pid = child
        toChild = input[1]
        fromChild = output[0]
    }

    deinit {
        if inputOpen { Foundation.close(toChild) }
        Foundation.close(fromChild)
        if ended == nil { _ = Foundation.kill(pid, SIGKILL); _ = reap() }
    }

    /// Sends one line (a newline is added).
    public func send(_ line: Data) throws(Failure) {
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
    public func receiveLine(timeout: Double) throws(Failure) -> Data {
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
    public func close() -> Failure {
        if let ended { return ended }
        Foundation.close(toChild)
        inputOpen = false
        return finish()
    }

    /// Kills the process now and reaps it.
    @discardableResult
    public func kill() -> Failure {
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
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return .exited(-1) }
        }
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }
}
