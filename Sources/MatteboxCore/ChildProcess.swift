import Foundation

/// Runs a helper process to completion with a time limit, collecting its output;
/// used wherever Mattebox isolates untrusted work (plugin scanning).
public struct ChildProcess: Sendable {
    public enum Outcome: Sendable {
        case exited(code: Int32, output: Data, errors: Data)
        case signalled(Int32)
        case timedOut
        case failedToStart(String)
    }

    public var arguments: [String]
    /// Variables set for the child on top of this process's environment.
    public var environment: [String: String]

    public init(arguments: [String], environment: [String: String] = [:]) {
        self.arguments = arguments
        self.environment = environment
    }

    public func run(timeout: TimeInterval) -> Outcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        do {
            try process.run()
        } catch {
            return .failedToStart("\(arguments[0]): \(error.localizedDescription)")
        }
        let collected = OutputCollector(output.fileHandleForReading, errors.fileHandleForReading)
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            finished.wait()
            return .timedOut
        }
        let (stdout, stderr) = collected.wait()
        if process.terminationReason == .uncaughtSignal {
            return .signalled(process.terminationStatus)
        }
        return .exited(code: process.terminationStatus, output: stdout, errors: stderr)
    }
}

/// Drains two pipes on background threads so a chatty child never blocks.
private final class OutputCollector: @unchecked Sendable {
    private var stdout = Data(), stderr = Data()
    private let group = DispatchGroup()

    init(_ out: FileHandle, _ err: FileHandle) {
        group.enter()
        group.enter()
        DispatchQueue.global().async { self.stdout = out.readDataToEndOfFile(); self.group.leave() }
        DispatchQueue.global().async { self.stderr = err.readDataToEndOfFile(); self.group.leave() }
    }

    func wait() -> (Data, Data) {
        group.wait()
        return (stdout, stderr)
    }
}
