import Foundation
import MatteboxPipeline
import MatteboxRuntime

/// The inference process of a batch with several workers (`mattebox
/// inference-server`): every worker's vision code sends its networks' inputs
/// there (MATTEBOX_INFERENCE_SOCKET), so each network is held once on the
/// machine, not once per worker. It lives in its own process so a crash in
/// inference fails only the photos in flight: a watcher thread starts it
/// again at once, and the workers' next requests wait for it to listen. The
/// socket sits in a private folder removed by `stop`.
// Unchecked: child and counters behind an NSLock; one watcher thread waits on the child; `stop` waits for it.
package final class InferenceHost: @unchecked Sendable {
    package let socketPath: String
    private let command: [String]
    private let folder: URL
    private let lock = NSLock()
    private var child: SpawnedChild?
    private var stopping = false
    private let watcherEnded = DispatchSemaphore(value: 0)
    private var starts_ = 0
    /// How many times it was started (1 unless it died).
    package var starts: Int { lock.withLock { starts_ } }

    /// `command` starts the process; `--socket PATH` is added.
    package init(command: [String]) throws {
        let temporary = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("mattebox-inference-XXXXXX")
        var template = Array(temporary.path.utf8CString)
        guard let made = mkdtemp(&template) else {
            throw MatteboxError("cannot make a folder for the inference socket: \(SystemError.describe(errno))")
        }
        folder = URL(fileURLWithPath: String(cString: made))
        socketPath = folder.appendingPathComponent("socket").path
        self.command = command + ["--socket", socketPath]
    }

    /// What the workers need to find it.
    package var environment: [String: String] { ["MATTEBOX_INFERENCE_SOCKET": socketPath] }

    /// Starts the process, waits until it listens, and watches it.
    package func start() throws {
        try lock.withLock { child = try spawn() }
        let watcher = Thread { [self] in watch() }
        watcher.stackSize = 1 << 18
        watcher.start()
    }

    /// Ends the process and removes its socket folder.
    package func stop() {
        let running = lock.withLock { () -> SpawnedChild? in
            stopping = true
            return child
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
        while let running = lock.withLock({ child }) {
            let ended = running.wait()
            lock.lock()
            defer { lock.unlock() }
            if stopping { return }
            Log.emit(.warning, "the inference process ended (\(ended)); the photos it was running fail; starting it again")
            do {
                child = try spawn()
            } catch {
                Log.emit(.error, "\(error)")
                child = nil
            }
        }
    }

    private func spawn() throws -> SpawnedChild {
        try? FileManager.default.removeItem(atPath: socketPath)
        // A crash ends it at once: the batch reports it in one line, and no
        // photo is served by a process that is writing its backtrace. The
        // tests' fault switch (MATTEBOX_INFERENCE_ABORT_AT) holds for the first process only.
        var environment = BatchScheduler.allocatorEnvironment.merging(["SWIFT_BACKTRACE": "enable=no"]) { _, ours in ours }
        if starts_ > 0 { environment["MATTEBOX_INFERENCE_ABORT_AT"] = "" }
        let started: SpawnedChild
        do {
            started = try SpawnedChild.spawn(command, environment: environment, input: .null, output: .null, errors: .inherit)
        } catch {
            throw MatteboxError("cannot start the inference process: \(error)")
        }
        starts_ += 1
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
