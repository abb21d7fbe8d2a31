import Foundation
import MatteboxCore
import MatteboxPipeline
import MatteboxRuntime

/// The worker side of a batch (`mattebox worker`, started by `mattebox
/// process`): reads a setup line, then one photo per line from standard input,
/// and answers each with its outcome. Plugins run here, so a crash or a hang
/// kills this process and costs only the photo in hand. The answers go out on
/// a private copy of standard output; anything else printed to standard output
/// (by a chatty plugin) is sent to standard error instead.
package enum BatchWorker {
    package static func serve() -> Int32 {
        let channel = dup(STDOUT_FILENO)
        dup2(STDERR_FILENO, STDOUT_FILENO)
        exitWhenParentDies()
        guard let first = readLine(), let setup = try? JSONDecoder().decode(WorkerSetup.self, from: Data(first.utf8))
        else {
            Log.emit(.error, "mattebox worker: expected a setup line on standard input (it is started by `mattebox process`)")
            return 2
        }
        let processor: BatchProcessor
        do {
            processor = try setup.makeProcessor()
        } catch {
            reply(WorkerReply(setupError: "\(error)"), on: channel)
            return 1
        }
        reply(WorkerReply(ready: true), on: channel)
        while let line = readLine() {
            guard let job = try? JSONDecoder().decode(WorkerJob.self, from: Data(line.utf8)) else {
                Log.emit(.error, "mattebox worker: unreadable job line")
                return 2
            }
            let sidecars = Dictionary(uniqueKeysWithValues: job.sidecars.map { (ImageRole($0.key), URL(fileURLWithPath: $0.value)) })
            let outcome = processor.process(
                URL(fileURLWithPath: job.input), outputStem: job.stem, sidecars: sidecars, movie: job.movie.map(URL.init(fileURLWithPath:)))
            reply(WorkerReply(outcome: outcome), on: channel)
        }
        return 0
    }

    private static func reply(_ message: WorkerReply, on channel: Int32) {
        guard var line = try? JSONEncoder().encode(message) else { return }
        line.append(0x0A)
        line.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(channel, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { exit(3) }
                offset += written
            }
        }
    }

    /// A worker whose parent was killed stops at once rather than finishing
    /// work nobody will record; `--resume` cleans up what it leaves.
    private static func exitWhenParentDies() {
        let parent = getppid()
        let watchdog = Thread {
            while getppid() == parent { usleep(200_000) }
            _exit(70)
        }
        watchdog.start()
    }
}
