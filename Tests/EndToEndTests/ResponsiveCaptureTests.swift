import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxTestSupport
import Synchronization
import Testing

/// Responsive capture as a user meets it (issue 44): presses that overlap
/// processing each get the frame of their own press, checked against the
/// emulated camera's own record of its frames; the shutter is refused only
/// when the queue's memory is spent, saying why; and a `serve` killed while
/// photos are processing leaves valid proxies, which the next run finishes
/// with the proxies' primaries copied, not encoded again.
@Suite(.serialized) struct ResponsiveCaptureTests {
    /// A front replay camera at 1280x960 playing a real portrait, so the portrait-mattes pipeline has work to do.
    private func portraitCamera(_ name: String) throws -> (config: URL, folder: URL) {
        let portrait = TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras/astronaut.jpg").path
        return try ReplayCamerasConfig.write(
            name,
            cameras: """
                  - name: Portrait Front
                    position: front
                    images: [\(portrait)]
                    format: MJPG
                    sizes: [1280x960]
                    fps: [30]
                """)
    }

    private func capture(_ arguments: [String], config: URL, out: URL, environment: [String: String] = [:]) throws
        -> (status: Int32, photos: [[String: Any]], errors: String)
    {
        let run = TestEnvironment.run(
            [TestEnvironment.mattebox, "capture", "--cameras", config.path, "--front", "--pipeline", "portrait-mattes",
             "-o", out.path, "--json"] + arguments,
            environment: environment, timeout: 300)
        let report = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any] ?? [:]
        return (run.status, report["photos"] as? [[String: Any]] ?? [], run.errors)
    }

    /// The device's record: frame sequence → CLOCK_MONOTONIC timestamp.
    private func frameLog(_ url: URL) throws -> [UInt32: UInt64] {
        var frames: [UInt32: UInt64] = [:]
        for line in try String(contentsOf: url, encoding: .utf8).split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count == 3, let sequence = UInt32(fields[1]), let time = UInt64(fields[2]) { frames[sequence] = time }
        }
        return frames
    }

    @Test func fivePressesWhilePhotosProcessEachGetTheFrameOfTheirPress() throws {
        let (config, folder) = try portraitCamera("responsive-burst")
        let log = folder.appendingPathComponent("frames.log")
        let out = folder.appendingPathComponent("out")
        // The host's own load must not throttle the camera here (its CPU pressure would restart the
        // stream, and a press just after a restart gets the first frame after it): this is about frames.
        let run = try capture(
            ["--count", "5", "--interval", "0.15", "--ignore-pressure"], config: config, out: out,
            environment: ["MATTEBOX_EMULATED_FRAME_LOG": log.path])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.photos.count == 5 && run.photos.allSatisfy { $0["error"] == nil || $0["error"] is NSNull })
        let frames = try frameLog(log)
        let period: UInt64 = 1_000_000_000 / 30
        var taken: UInt32?
        for photo in run.photos.sorted(by: { ($0["pressTime"] as? Int ?? 0) < ($1["pressTime"] as? Int ?? 0) }) {
            let sequence = UInt32(photo["frameSequence"] as? Int ?? -1)
            let press = UInt64(photo["pressTime"] as? Int ?? 0)
            let exposed = try #require(frames[sequence], "frame \(sequence) is not in the device's log")
            // The driver's timestamp, in the buffer's timeval (microseconds).
            #expect(exposed / 1000 == UInt64(photo["frameTimestamp"] as? Int ?? 0) / 1000, "the photo's timestamp is the device's")
            // The frame being exposed at the press; or, when a loaded machine delivered no newer frame
            // since the press before took that one, the next (two presses never share a frame).
            let atPress = exposed <= press && press - exposed <= period
            #expect(atPress || taken.map { sequence == $0 + 1 } == true, "frame \(sequence) at \(exposed), press at \(press), the press before took \(taken.map(String.init) ?? "none")")
            #expect(taken.map { sequence > $0 } ?? true, "each press its own, later frame")
            taken = sequence
            // Each final has replaced its proxy and carries what the pipeline made.
            let output = try #require(photo["output"] as? String)
            let decoded = try ImageDecoder.decodePhoto(at: URL(fileURLWithPath: output))
            #expect(decoded.auxiliary[.portraitMatte] != nil, "\(output): \(photo["notes"] ?? "")")
        }
        // Presses came faster than processing: those with photos waiting behind them were made at speed, saying so.
        let economised = run.photos.filter { ($0["notes"] as? [String: String])?["capturePrioritisation"] != nil }
        #expect(!economised.isEmpty && economised.count < 5, "the last photo has nothing behind it")
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent(".mattebox-pending.jsonl").path),
                "nothing is left pending")
    }

    @Test func theShutterIsRefusedOnlyPastTheQueuesMemoryAndSaysWhy() throws {
        let (config, folder) = try portraitCamera("responsive-bound")
        let out = folder.appendingPathComponent("out")
        // 8 MiB holds two 1280x960 photos (3.5 MiB each) waiting; the third press finds them still processing.
        let run = try capture(["--count", "4", "--interval", "0.1", "--queue-memory", "8"], config: config, out: out)
        #expect(run.status == 1, "a refused press is a failure of the run: \(run.errors)")
        let refused = run.photos.filter { ($0["error"] as? String)?.contains("the shutter is refused") == true }
        #expect(run.photos.prefix(2).allSatisfy { $0["error"] == nil || $0["error"] is NSNull }, "the first two fit")
        #expect(!refused.isEmpty)
        for photo in refused {
            let message = photo["error"] as? String ?? ""
            #expect(message.contains("photos are still being processed") && message.contains("of the 8 MiB queue"), "\(message)")
        }
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".heic") }
        #expect(written.count == run.photos.count - refused.count, "every press taken is a photo: \(written)")
    }

    @Test func aServeKilledWhilePhotosProcessLeavesProxiesThatTheNextRunFinishes() throws {
        let (config, _) = try portraitCamera("responsive-kill")
        let first = try ServedApp(pipeline: "portrait-mattes", cameras: config)
        let library = first.library
        let cameras = try first.send("GET", "/api/status").json["cameras"] as? [[String: Any]] ?? []
        let front = try #require(cameras.first?["id"] as? String)
        #expect(try first.send("POST", "/api/camera", json: "{\"camera\": \"\(front)\"}", token: true).status == 200)
        #expect(try Waiting.until { try first.send("GET", "/api/status").json["framesKept"] as? Int ?? 0 > 10 })
        // Three presses at once: each answers when its proxy is on disk, before its mattes.
        let replies = Mutex<[ServedApp.Reply]>([])
        nonisolated(unsafe) let app = first  // its requests only read what it was made with
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            if let reply = try? app.send("POST", "/api/capture", json: #"{"quality":"balanced"}"#, token: true) {
                replies.withLock { $0.append(reply) }
            }
        }
        kill(first.pid, SIGKILL)
        let answered = replies.withLock { $0 }
        #expect(answered.count == 3 && answered.allSatisfy { $0.status == 200 && $0.json["state"] as? String == "processing" })
        let names = answered.compactMap { $0.json["id"] as? String }
        let pendingRecord = library.appendingPathComponent(".mattebox-pending.jsonl")
        #expect(FileManager.default.fileExists(atPath: pendingRecord.path), "the kill left photos pending")
        var proxies: [String: PixelImage] = [:]
        for name in names {
            let url = library.appendingPathComponent(name)
            // Valid: libvips and libheif both open the proxy.
            #expect(TestEnvironment.run(["vipsheader", url.path]).status == 0, "libvips cannot open \(name)")
            #expect(TestEnvironment.run(["heif-info", url.path]).status == 0, "libheif cannot open \(name)")
            proxies[name] = try ImageDecoder.decodePhoto(at: url).primary
        }
        #expect(proxies.count == 3)

        // The next run finishes them: mattes added, the primary as the proxy had it (copied, not encoded again).
        let second = try ServedApp(pipeline: "portrait-mattes", cameras: config, library: library)
        #expect(try Waiting.until(120) { !FileManager.default.fileExists(atPath: pendingRecord.path) }, "the pending photos were finished")
        for (name, primary) in proxies {
            let final = try ImageDecoder.decodePhoto(at: library.appendingPathComponent(name))
            #expect(final.auxiliary[.portraitMatte] != nil, "\(name) was finished with its mattes")
            #expect(final.primary.hasSamePixels(as: primary), "\(name): the proxy's pixels are the final's")
        }
        let listing = try second.send("GET", "/api/library").json["photos"] as? [[String: Any]] ?? []
        #expect(listing.filter { names.contains($0["id"] as? String ?? "") }.allSatisfy { ($0["processing"] as? Bool) != true })
    }

    @Test func captureResumePendingFinishesWhatAKilledCaptureLeft() throws {
        let (config, folder) = try portraitCamera("responsive-resume")
        let out = folder.appendingPathComponent("out")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: TestEnvironment.mattebox)
        process.arguments = [
            "capture", "--cameras", config.path, "--front", "--pipeline", "portrait-mattes", "--count", "3", "--interval", "0.1",
            "-o", out.path, "-q",
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(TestEnvironment.isolatedFolders) { _, ours in ours }
        try process.run()
        func proxies() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).filter { $0.hasSuffix(".heic") }.sorted()
        }
        #expect(Waiting.until(120) { proxies().count == 3 }, "three presses, three proxies")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let left = (try? String(contentsOf: out.appendingPathComponent(".mattebox-pending.jsonl"), encoding: .utf8)) ?? ""
        let pending = proxies().filter { left.contains($0) }
        #expect(!pending.isEmpty, "the kill came while photos were processing")

        let again = TestEnvironment.run([TestEnvironment.mattebox, "capture", "--cameras", config.path, "-o", out.path])
        #expect(again.errors.contains("--resume-pending"), "a capture into the folder says what was left: \(again.errors)")
        let resumed = TestEnvironment.run(
            [TestEnvironment.mattebox, "capture", "--resume-pending", "--pipeline", "portrait-mattes", "-o", out.path, "--json"],
            timeout: 300)
        #expect(resumed.status == 0, "\(resumed.errors)")
        let report = try JSONSerialization.jsonObject(with: Data(resumed.output.utf8)) as? [String: Any] ?? [:]
        let finished = (report["finished"] as? [[String: String]] ?? []).compactMap { $0["output"] }
        #expect(Set(finished.map { URL(fileURLWithPath: $0).lastPathComponent }) == Set(pending))
        for name in pending {
            #expect(try ImageDecoder.decodePhoto(at: out.appendingPathComponent(name)).auxiliary[.portraitMatte] != nil, "\(name)")
        }
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent(".mattebox-pending.jsonl").path))
    }
}
