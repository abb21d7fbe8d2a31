import Foundation
import MatteboxPipeline
import MatteboxRuntime
import Synchronization

/// The inference process of a batch with several workers (`mattebox
/// inference-server`): every worker's vision code sends its networks' inputs
/// there (MATTEBOX_INFERENCE_SOCKET), so each network is held once on the
/// machine, not once per worker. It lives in its own process so a crash in
/// inference fails only the photos in flight: a watcher thread starts it
/// again at once, and the workers' next requests wait for it to listen. The
/// socket sits in a private folder removed by `stop`.
/// One watcher thread waits on the child; `stop` waits for the watcher.
package final class InferenceHost: Sendable {
    package let socketPath: String
    private let command: [String]
    private let folder: URL
    /// The running process and the counts, behind a lock the compiler checks.
    private struct State {
        var child: SpawnedChild?
        var stopping = false
        var starts = 0
    }
    private let state = Mutex(State())
    private let watcherEnded = DispatchSemaphore(value: 0)
    /// How many times it was started (1 unless it died).
    package var starts: Int { state.withLock { $0.starts } }

    /// `command` starts the process; `--socket PATH` is added.
    package init(command: [String]) throws {
        Self.removeFoldersOfEndedBatches()
        let temporary = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("mattebox-inference-XXXXXX")
        var template = Array(temporary.path.utf8CString)
        guard let made = mkdtemp(&template) else {
            throw MatteboxError("cannot make a folder for the inference socket: \(SystemError.describe(errno))")
        }
        folder = URL(fileURLWithPath: String(cString: made))
        // Whose folder it is: a batch that was killed (SIGKILL) cannot remove it; the next one does.
        try? Data("\(getpid())".utf8).write(to: folder.appendingPathComponent(Self.ownerFile))
        socketPath = folder.appendingPathComponent("socket").path
        self.command = command + ["--socket", socketPath]
    }

    private static let ownerFile = "batch.pid"

    /// The socket folders of batches that ended without `stop` (killed): their owner is gone.
    static func removeFoldersOfEndedBatches() {
        let temporary = URL(fileURLWithPath: NSTemporaryDirectory())
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for name in names where name.hasPrefix("mattebox-inference-") {
            let folder = temporary.appendingPathComponent(name)
            guard let text = try? String(contentsOf: folder.appendingPathComponent(ownerFile), encoding: .utf8),
                let owner = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)), owner > 0,
                kill(owner, 0) != 0, errno == ESRCH
            else { continue }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// What the workers need to find it.
    package var environment: [String: String] { ["MATTEBOX_INFERENCE_SOCKET": socketPath] }

    /// Starts the process, waits until it listens, and watches it.
    package func start() throws {
        try state.withLock { $0.child = try spawn(&$0) }
        let watcher = Thread { [self] in watch() }
        watcher.stackSize = 1 << 18
        watcher.start()
    }

    /// Ends the process and removes its socket folder.
    package func stop() {
        let running = state.withLock { state -> SpawnedChild? in
            state.stopping = true
            return state.child
        }
        if let running {
            running.kill()
            watcherEnded.wait()
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Started again whenever it ends before `stop`.
    private func watch() {
        defer { watcherEnded.signal() }
        while let running = state.withLock({ $0.child }) {
            let ended = running.wait()
            let stopped = state.withLock { state -> Bool in
                if state.stopping { return true }
                Log.emit(.warning, "the inference process ended (\(ended)); the photos it was running fail; starting it again")
                do {
                    state.child = try spawn(&state)
                } catch {
                    Log.emit(.error, "\(error)")
                    state.child = nil
                }
                return false
            }
            if stopped { return }
        }
    }

    /// Starts the process and waits until it listens; called with the state locked.
    private func spawn(_ state: inout State) throws -> SpawnedChild {
        try? FileManager.default.removeItem(atPath: socketPath)
        // A crash ends it at once: the batch reports it in one line, and no
        // photo is served by a process that is writing its backtrace. The
        // tests' fault switch (MATTEBOX_INFERENCE_ABORT_AT) holds for the first process only.
        var environment = BatchScheduler.allocatorEnvironment.merging(["SWIFT_BACKTRACE": "enable=no"]) { _, ours in ours }
        if state.starts > 0 { environment["MATTEBOX_INFERENCE_ABORT_AT"] = "" }
        let started: SpawnedChild
        do {
            started = try SpawnedChild.spawn(command, environment: environment, input: .null, output: .null, errors: .inherit)
        } catch {
            throw MatteboxError("cannot start the inference process: \(error)")
        }
        state.starts += 1
        let deadline = ContinuousClock.now + .seconds(30)
        while !FileManager.default.fileExists(atPath: socketPath) {
            if let ended = started.ended() { throw MatteboxError("the inference process ended at start (\(ended))") }
            guard ContinuousClock.now < deadline else {
                started.kill()
                _ = started.wait()
                throw MatteboxError("the inference process did not listen within 30 s")
            }
            usleep(5_000)
        }
        return started
    }
}
