import Foundation

/// Runs a helper process to completion with a time limit, collecting its
/// output; used wherever Mattebox isolates untrusted work (plugin scanning).
/// Started by `SpawnedChild`, with standard input from /dev/null.
package struct ChildProcess: Sendable {
    package enum Outcome: Sendable {
        case exited(code: Int32, output: Data, errors: Data)
        case signalled(Int32)
        case timedOut
        case failedToStart(String)
    }

    package var arguments: [String]
    /// Variables set for the child on top of this process's environment.
    package var environment: [String: String]

    package init(arguments: [String], environment: [String: String] = [:]) {
        self.arguments = arguments
        self.environment = environment
    }

    package func run(timeout: TimeInterval) -> Outcome {
        let child: SpawnedChild
        do {
            child = try SpawnedChild.spawn(arguments, environment: environment, input: .null, output: .pipe, errors: .pipe)
        } catch {
            return .failedToStart(error.message)
        }
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        let drained = Self.drain([child.output!, child.errors!], until: deadline)
        guard let drained else {
            child.kill()
            _ = child.wait()
            return .timedOut
        }
        switch child.wait() {
        case .signalled(let signal): return .signalled(signal)
        case .exited(let code): return .exited(code: code, output: drained[0], errors: drained[1])
        }
    }

    /// Reads every descriptor to its end, closing each; nil when the deadline
    /// passes first (the descriptors are closed then too).
    private static func drain(_ descriptors: [Int32], until deadline: ContinuousClock.Instant) -> [Data]? {
        defer { descriptors.forEach { _ = close($0) } }
        var collected = descriptors.map { _ in Data() }
        var open = Set(descriptors.indices)
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty {
            let remaining = deadline - ContinuousClock.now
            let milliseconds = remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000
            guard milliseconds > 0 else { return nil }
            var pollers = open.sorted().map { pollfd(fd: descriptors[$0], events: Int16(POLLIN), revents: 0) }
            let ready = poll(&pollers, nfds_t(pollers.count), Int32(min(milliseconds, 60_000)))
            if ready < 0 && errno != EINTR { return nil }
            guard ready > 0 else { continue }
            for poller in pollers where poller.revents != 0 {
                let index = descriptors.firstIndex(of: poller.fd)!
                let count = chunk.withUnsafeMutableBytes { read(poller.fd, $0.baseAddress!, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { open.remove(index) } else { collected[index].append(contentsOf: chunk[..<count]) }
            }
        }
        return collected
    }
}
