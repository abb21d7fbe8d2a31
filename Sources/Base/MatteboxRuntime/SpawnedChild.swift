import Foundation

/// The one way Mattebox starts a child process (plugin scanning, batch
/// workers, tests running the CLI): posix_spawn with each standard stream a
/// pipe, /dev/null or inherited, pipes made close-on-exec and the spawn done
/// under one lock, so no other child started at the same moment inherits
/// these pipe ends (which would hide this child's exit from its reader).
/// `ChildProcess` (run to completion) and `LineChannelProcess` (a long-lived
/// conversation) are the two ways of talking to it.
package struct SpawnedChild: Sendable {
    /// What a standard stream of the child is connected to.
    package enum Stream: Sendable {
        case pipe, null, inherit
    }

    /// How a child ended.
    package enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    package let pid: pid_t
    /// Our ends of the piped streams: write to `input`, read `output` and `errors`.
    package let input: Int32?
    package let output: Int32?
    package let errors: Int32?

    private static let spawnLock = NSLock()

    /// Starts `arguments[0]` with `arguments`, its environment this process's
    /// plus `environment`. Throws a message naming the program when it cannot.
    package static func spawn(
        _ arguments: [String], environment: [String: String] = [:], input: Stream, output: Stream, errors: Stream
    ) throws(SpawnError) -> SpawnedChild {
        // A write to a child that just died must be an error, not a SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        spawnLock.lock()
        defer { spawnLock.unlock() }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var ours: [Int32?] = [nil, nil, nil]
        var theirs: [Int32] = []
        func closeAll() {
            ours.compactMap { $0 }.forEach { _ = Foundation.close($0) }
            theirs.forEach { _ = Foundation.close($0) }
        }
        for (target, stream) in [input, output, errors].enumerated() {
            switch stream {
            case .inherit:
                continue
            case .null:
                posix_spawn_file_actions_addopen(&actions, Int32(target), "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .pipe:
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else {
                    let reason = String(cString: strerror(errno))
                    closeAll()
                    throw SpawnError(message: "\(arguments[0]): cannot make a pipe: \(reason)")
                }
                for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                // The child reads its standard input from the read end; it writes the others.
                let (child, parent) = target == 0 ? (ends[0], ends[1]) : (ends[1], ends[0])
                posix_spawn_file_actions_adddup2(&actions, child, Int32(target))
                ours[target] = parent
                theirs.append(child)
            }
        }
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // The child starts with the default signal handling, whatever this process
        // blocks or ignores (SIGPIPE here; a test runner may block SIGTERM), so it can be stopped;
        // but SIGINT and SIGHUP stay ignored when this process was started ignoring them (a job a
        // script put in the background with &), so the batch ignores them as a whole instead of its
        // workers dying under a parent that carries on.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for signalNumber in [SIGPIPE, SIGTERM] { sigaddset(&defaults, signalNumber) }
        for signalNumber in [SIGINT, SIGHUP] where !Self.isIgnored(signalNumber) { sigaddset(&defaults, signalNumber) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        let status = posix_spawn(&child, arguments[0], &actions, &attributes, argv, envp)
        theirs.forEach { _ = Foundation.close($0) }
        theirs = []
        guard status == 0 else {
            closeAll()
            throw SpawnError(message: "\(arguments[0]): \(String(cString: strerror(status)))")
        }
        return SpawnedChild(pid: child, input: ours[0], output: ours[1], errors: ours[2])
    }

    /// Whether this process ignores `signalNumber` (SIG_IGN), as it was started or set.
    static func isIgnored(_ signalNumber: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(signalNumber, nil, &current) == 0 else { return false }
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == 1  // SIG_IGN is (void (*)(int))1
    }

    /// Waits for the child to end and reaps it.
    package func wait() -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return .exited(-1) }
        }
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    /// How the child ended, reaping it, or nil while it runs.
    package func ended() -> Termination? {
        var status: Int32 = 0
        let reaped = waitpid(pid, &status, WNOHANG)
        guard reaped == pid else { return reaped < 0 && errno == ECHILD ? .exited(-1) : nil }
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    /// Kills the child at once (it is still to be reaped with `wait`).
    package func kill() { _ = Foundation.kill(pid, SIGKILL) }
}

/// A child process could not be started: why, naming the program.
package struct SpawnError: Error, Sendable, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}
