import Foundation
import Synchronization
import MatteboxCore
import MatteboxImageIO
import MatteboxRuntime
import MatteboxTestSupport
import Testing

/// `mattebox process` on folders as an archive job runs it: bad files and a
/// crashing or hanging plugin fail only their photos, a killed run resumes
/// without losing or duplicating anything, and shards add up to the whole.
@Suite struct BatchCommandTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("batch") }

    /// A JPEG `width` px wide (a colour pattern), written at `relative` under `root`.
    private func writeJPEG(_ relative: String, width: Int, height: Int = 40, under root: URL) throws {
        let photo = Photo(primary: TestImages.pattern(width: width, height: height))
        try AtomicFile.write(try ImageEncoder.encode(photo, as: .jpeg), to: root.appendingPathComponent(relative))
    }

    private func mattebox(_ arguments: [String], plugins: URL? = nil, timeout: TimeInterval = 300)
        -> TestEnvironment.CommandResult
    {
        TestEnvironment.run(
            [TestEnvironment.mattebox] + arguments,
            environment: plugins.map { ["MATTEBOX_PLUGIN_PATH": $0.path] } ?? [:], timeout: timeout)
    }

    /// The processes whose parent is `pid` (from /proc).
    static func children(of pid: pid_t) -> [pid_t] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name -> pid_t? in
            guard let child = pid_t(name), let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == pid ? child : nil
        }
    }

    private func report(_ url: URL) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] ?? [:]
    }

    /// Every file under `root`, relative, hidden ones included.
    private func files(under root: URL) -> [String] {
        let walker = FileManager.default.enumerator(atPath: root.path)
        return (walker?.allObjects as? [String] ?? []).filter { path in
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory)
            return !isDirectory.boolValue
        }.sorted()
    }

    private func decodes(_ url: URL) -> Bool {
        TestEnvironment.run(["/usr/bin/vipsheader", url.path]).status == 0
    }

    @Test func badFilesAndMisbehavingPluginsFailOnlyTheirOwnPhotos() throws {
        let plugins = folder.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        _ = try TestEnvironment.compilePlugin(
            TestEnvironment.fixtures.appendingPathComponent("plugins/misbehave_on_width.c"), into: plugins)
        let inputs = folder.appendingPathComponent("in")
        for (name, width) in [("good/a.jpg", 60), ("good/b.jpg", 62), ("good/deep/c.jpg", 63), ("crash.jpg", 61),
                              ("hang.jpg", 64)] {
            try writeJPEG(name, width: width, under: inputs)
        }
        let whole = try Data(contentsOf: inputs.appendingPathComponent("good/a.jpg"))
        try whole.prefix(whole.count / 2).write(to: inputs.appendingPathComponent("truncated.jpg"))
        try Data().write(to: inputs.appendingPathComponent("empty.jpg"))
        try Data("not a photo\n".utf8).write(to: inputs.appendingPathComponent("notes.jpg"))
        var heif = [UInt8](try ImageEncoder.encode(Photo(primary: TestImages.pattern()), as: .heic))
        let meta = try #require((0..<heif.count - 4).first { heif[$0..<$0 + 4] == [0x6d, 0x65, 0x74, 0x61] })
        heif.replaceSubrange(meta - 4..<meta, with: [0x7f, 0xff, 0xff, 0xf0])
        try Data(heif).write(to: inputs.appendingPathComponent("hostile.heic"))
        let pipeline = folder.appendingPathComponent("p.yaml")
        try """
            stages:
              - plugin: org.mattebox.tests.misbehave
                params: { crash-width: 61, hang-width: 64 }
              - plugin: org.mattebox.orientation
            """.write(to: pipeline, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("out")
        let reportFile = folder.appendingPathComponent("report.json")

        let result = mattebox(
            ["process", inputs.path, "-o", out.path, "--pipeline", pipeline.path, "-j", "2", "--timeout", "8",
             "--report", reportFile.path], plugins: plugins)
        #expect(result.status == 1, "\(result.errors)")
        let summary = try report(reportFile)
        #expect(summary["succeeded"] as? Int == 3)
        #expect(summary["failed"] as? Int == 6)
        let photos = summary["photos"] as? [[String: Any]] ?? []
        let byName = Dictionary(uniqueKeysWithValues: photos.map {
            (URL(fileURLWithPath: $0["input"] as? String ?? "").lastPathComponent, $0)
        })
        for name in ["a.jpg", "b.jpg", "c.jpg"] { #expect(byName[name]?["status"] as? String == "ok", "\(name)") }
        for name in ["crash.jpg", "hang.jpg", "truncated.jpg", "empty.jpg", "notes.jpg", "hostile.heic"] {
            #expect(byName[name]?["status"] as? String == "failed", "\(name)")
            let error = byName[name]?["error"] as? String ?? ""
            #expect(error.contains(inputs.appendingPathComponent(name).path), "\(name): \(error)")
        }
        #expect(byName["crash.jpg"]?["workerSignal"] as? Int == Int(SIGSEGV))
        #expect((byName["crash.jpg"]?["error"] as? String)?.contains("SIGSEGV") == true)
        #expect(byName["hang.jpg"]?["timedOut"] as? Bool == true)
        // The input tree is mirrored, every output decodes, nothing half-written is left.
        let outputs = files(under: out).filter { !$0.hasPrefix(".mattebox-manifest") }
        #expect(outputs == ["good/a.jpg", "good/b.jpg", "good/deep/c.jpg"])
        for path in outputs { #expect(decodes(out.appendingPathComponent(path)), "\(path)") }
        // The text form names every failure on its file too.
        #expect(result.output.contains("FAILED \(inputs.appendingPathComponent("crash.jpg").path)"))
    }

    @Test func aKilledBatchResumesWithEveryOutputCompleteAndOriginalsUntouched() throws {
        let inputs = folder.appendingPathComponent("in")
        for index in 0..<14 {
            try writeJPEG("set\(index % 3)/photo\(index).jpg", width: 1200 + index, height: 900, under: inputs)
        }
        let originals = try files(under: inputs).map { try Data(contentsOf: inputs.appendingPathComponent($0)) }
        let out = folder.appendingPathComponent("out")
        let arguments = ["process", inputs.path, "-o", out.path, "--format", "heic", "-j", "1"]
        let manifest = out.appendingPathComponent(".mattebox-manifest.jsonl")

        let run = Process()
        run.executableURL = URL(fileURLWithPath: TestEnvironment.mattebox)
        run.arguments = arguments
        run.standardOutput = FileHandle.nullDevice
        run.standardError = FileHandle.nullDevice
        try run.run()
        // Finished photos: the manifest's entry lines (its "written" lines record files as they are put in place).
        func finished() -> Int {
            ((try? String(contentsOf: manifest, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.contains("\"stem\"") }.count
        }
        let deadline = Date().addingTimeInterval(240)
        while Date() < deadline, run.isRunning, finished() < 3 {
            usleep(20_000)
        }
        #expect(run.isRunning, "the batch finished before it could be killed; make the photos bigger")
        let workers = Self.children(of: run.processIdentifier)
        kill(run.processIdentifier, SIGKILL)
        run.waitUntilExit()
        // The worker notices its parent is gone and ends: wait for that (entries are written by the
        // parent, so the count below is final once it is dead), not for a fixed time.
        #expect(Waiting.until { workers.allSatisfy { kill($0, 0) != 0 } }, "the batch's workers outlived it: \(workers)")
        let doneBefore = finished()
        #expect(doneBefore >= 3 && doneBefore < 14)

        let reportFile = folder.appendingPathComponent("report.json")
        let resumed = mattebox(arguments + ["--resume", "--report", reportFile.path])
        #expect(resumed.status == 0, "\(resumed.errors)")
        let summary = try report(reportFile)
        #expect(summary["skipped"] as? Int ?? 0 >= doneBefore)
        #expect((summary["skipped"] as? Int ?? 0) + (summary["succeeded"] as? Int ?? 0) == 14)
        let expected = (0..<14).map { "set\($0 % 3)/photo\($0).heic" }.sorted()
        #expect(files(under: out).filter { !$0.hasPrefix(".mattebox-manifest") } == expected)
        for path in expected {
            let header = TestEnvironment.run(["/usr/bin/vipsheader", out.appendingPathComponent(path).path])
            #expect(header.status == 0 && header.output.contains("x900 "), "\(path): \(header.errors)")
        }
        #expect(try files(under: inputs).map { try Data(contentsOf: inputs.appendingPathComponent($0)) } == originals)
        // A second resume finds everything done; a changed pipeline redoes everything.
        let again = mattebox(arguments + ["--resume", "--json"])
        #expect(again.status == 0)
        #expect(again.output.contains("\"skipped\" : 14"))
        let changed = mattebox(arguments + ["--resume", "--quality", "60", "--json"])
        #expect(changed.output.contains("\"succeeded\" : 14"), "\(changed.errors)")
    }

    @Test func allShardsTogetherMakeExactlyTheUnshardedOutputs() throws {
        let inputs = folder.appendingPathComponent("in")
        for index in 0..<12 { try writeJPEG("g\(index % 2)/p\(index).jpg", width: 50 + index, under: inputs) }
        let whole = folder.appendingPathComponent("whole"), sharded = folder.appendingPathComponent("sharded")
        #expect(mattebox(["process", inputs.path, "-o", whole.path]).status == 0)
        var counts: [Int] = []
        for shard in 0..<4 {
            let result = mattebox(["process", inputs.path, "-o", sharded.path, "--shard", "\(shard)/4", "--json"])
            #expect(result.status == 0, "\(result.errors)")
            let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
            counts.append(object?["total"] as? Int ?? -1)
        }
        #expect(counts.reduce(0, +) == 12)
        let outputs = files(under: whole).filter { !$0.hasPrefix(".") }
        #expect(outputs.count == 12)
        #expect(files(under: sharded).filter { !$0.hasPrefix(".") } == outputs)
        for path in outputs {
            #expect(
                try Data(contentsOf: whole.appendingPathComponent(path))
                    == Data(contentsOf: sharded.appendingPathComponent(path)), "\(path)")
        }
        #expect(mattebox(["process", inputs.path, "-o", sharded.path, "--shard", "4/4"]).errors.contains("--shard"))
    }

    /// Four shards running at the same time into one folder, as a cluster runs them: names that
    /// collide (a.jpg, a.png and a.tif all become a HEIC) are chosen the same way by every shard,
    /// each shard appends only to its own manifest, nothing partial stays, and the reports merge.
    @Test func fourShardsAtOnceShareOneOutputFolderSafely() throws {
        let inputs = folder.appendingPathComponent("in"), output = folder.appendingPathComponent("out")
        for index in 0..<12 { try writeJPEG("p\(index).jpg", width: 60 + index, under: inputs) }
        for format in [OutputFormat.jpeg, .png] {
            let photo = Photo(primary: TestImages.pattern(width: 80, height: 60))
            try AtomicFile.write(try ImageEncoder.encode(photo, as: format), to: inputs.appendingPathComponent("a.\(format.fileExtension)"))
        }
        #expect(TestEnvironment.run(["vips", "copy", inputs.appendingPathComponent("a.png").path, inputs.appendingPathComponent("a.tif").path]).status == 0)
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 16]).write(to: inputs.appendingPathComponent("broken.jpg"))
        let originals = try FileManager.default.contentsOfDirectory(atPath: inputs.path).sorted().map {
            ($0, try Data(contentsOf: inputs.appendingPathComponent($0)))
        }
        // All four started together, each on its own thread waiting for its own process.
        let results = Mutex<[Int: TestEnvironment.CommandResult]>([:])
        let finished = DispatchGroup()
        for shard in 0..<4 {
            finished.enter()
            Thread { [self] in
                defer { finished.leave() }
                let result = mattebox([
                    "process", inputs.path, "-o", output.path, "--format", "heic", "-j", "2", "--shard", "\(shard)/4", "--resume",
                    "--report", output.appendingPathComponent("reports/shard-\(shard).json").path,
                ])
                results.withLock { $0[shard] = result }
            }.start()
        }
        finished.wait()
        let byShard = results.withLock { $0 }
        #expect(byShard.values.filter { $0.status == 1 }.count == 1, "exactly one shard holds broken.jpg: \(byShard.mapValues(\.status))")
        #expect(byShard.values.allSatisfy { $0.status == 0 || $0.status == 1 }, "\(byShard.mapValues(\.errors))")

        let written = files(under: output).filter { !$0.hasPrefix(".") && !$0.hasPrefix("reports/") }
        #expect(written == (["a.heic", "a-2.heic", "a-3.heic"] + (0..<12).map { "p\($0).heic" }).sorted(), "\(written)")
        for name in written { #expect(TestEnvironment.run(["heif-info", output.appendingPathComponent(name).path]).status == 0, "\(name)") }
        let hidden = files(under: output).filter { $0.hasPrefix(".") }
        #expect(hidden == (0..<4).map { ".mattebox-manifest-shard-\($0)-of-4.jsonl" }, "one manifest per shard, nothing partial: \(hidden)")
        for name in hidden {
            let lines = try String(contentsOf: output.appendingPathComponent(name), encoding: .utf8).split(separator: "\n")
            #expect(lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil }, "a torn line in \(name)")
        }
        #expect(try originals.allSatisfy { try Data(contentsOf: inputs.appendingPathComponent($0.0)) == $0.1 }, "an original changed")

        let reports = (0..<4).map { output.appendingPathComponent("reports/shard-\($0).json").path }
        let merged = mattebox(["report", "merge", "--json"] + reports)
        #expect(merged.status == 1, "one photo failed: \(merged.errors)")
        let summary = try JSONSerialization.jsonObject(with: Data(merged.output.utf8)) as? [String: Any] ?? [:]
        #expect(summary["total"] as? Int == 16 && summary["succeeded"] as? Int == 15 && summary["failed"] as? Int == 1, "\(summary)")
        #expect((summary["missingShards"] as? [String])?.isEmpty == true && (summary["listedTwice"] as? [String])?.isEmpty == true)
        let partial = mattebox(["report", "merge"] + reports.prefix(3))
        #expect(partial.status == 1 && partial.output.contains("no report from shard 3/4"), "\(partial.output)")
        let notAReport = mattebox(["report", "merge", inputs.appendingPathComponent("p0.jpg").path])
        #expect(notAReport.status == 1 && notAReport.errors.contains("p0.jpg is not a Mattebox batch report"), "\(notAReport.errors)")
    }

    /// A memory budget admits photos by their estimated memory, not only by -j: one that holds a
    /// single worker beside the batch's own processes starts one worker (which then encodes ahead
    /// and keeps its networks itself), saying why; one that holds two small photos but not a 12 MP
    /// one with another runs the small ones two at a time and the large one alone, saying so once;
    /// `none` lifts it. Estimates follow each picture's size (its header).
    @Test func aMemoryBudgetLowersHowManyPhotosRunAtOnce() throws {
        let inputs = folder.appendingPathComponent("in")
        // Eight 0.5 MP photos (about 91 MiB a worker) and, last, a 12 MP one (about 368 MiB).
        for index in 0..<8 { try writeJPEG("p\(index).jpg", width: 800 + index, height: 600, under: inputs) }
        try writeJPEG("p9.jpg", width: 4000, height: 3000, under: inputs)
        func run(_ budget: String) throws -> (report: [String: Any], errors: String) {
            let out = folder.appendingPathComponent("out-\(budget)")
            let result = TestEnvironment.run(
                [TestEnvironment.mattebox, "process", inputs.path, "-o", out.path, "--format", "heic", "-j", "2", "--json",
                 "--ignore-pressure", "--memory-budget", budget], timeout: 600)
            #expect(result.status == 0, "\(result.errors)")
            return (try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any] ?? [:], result.errors)
        }
        // 600 MiB less the batch (70) and the inference process (450): one small worker at most.
        let tight = try run("600M")
        #expect(tight.report["memoryBudgetMiB"] as? Int == 600 && tight.report["succeeded"] as? Int == 9)
        #expect(tight.report["jobs"] as? Int == 1 && tight.report["peakConcurrency"] as? Int == 1, "\(tight.report["jobs"] ?? "")")
        #expect(tight.errors.contains("memory budget 600 MiB: 1 photo(s) at once, not 2"), "\(tight.errors)")
        // 800 MiB leaves 280: two small workers, but not the large one beside another.
        let mixed = try run("800M")
        #expect(mixed.report["jobs"] as? Int == 2 && mixed.report["peakConcurrency"] as? Int == 2, "\(mixed.report["peakConcurrency"] ?? "")")
        #expect(mixed.errors.contains("memory budget: 1 photo(s) in flight") && mixed.errors.contains("so the next waits"), "\(mixed.errors)")
        let free = try run("none")
        #expect(free.report["memoryBudgetMiB"] == nil && free.report["peakConcurrency"] as? Int == 2, "\(free.report)")
        #expect(!free.errors.contains("memory budget"))
        let wrong = TestEnvironment.run([TestEnvironment.mattebox, "process", inputs.path, "-o", folder.appendingPathComponent("x").path, "--memory-budget", "12X"])
        #expect(wrong.status == 64 && wrong.errors.contains("--memory-budget \"12X\" is not a size"), "\(wrong.errors)")
    }

    @Test func thermalPressureLowersHowManyPhotosRunAtOnce() throws {
        let inputs = folder.appendingPathComponent("in")
        for index in 0..<6 { try writeJPEG("p\(index).jpg", width: 800 + index, height: 600, under: inputs) }
        let system = folder.appendingPathComponent("system")
        let zone = system.appendingPathComponent("sys/class/thermal/thermal_zone0")
        try FileManager.default.createDirectory(at: zone, withIntermediateDirectories: true)
        for (name, value) in [("type", "soc"), ("trip_point_0_type", "hot"), ("trip_point_0_temp", "85000")] {
            try "\(value)\n".write(to: zone.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        func run(celsius: Int) throws -> [String: Any] {
            try "\(celsius * 1000)\n".write(to: zone.appendingPathComponent("temp"), atomically: true, encoding: .utf8)
            let out = folder.appendingPathComponent("out-\(celsius)")
            let result = TestEnvironment.run(
                [TestEnvironment.mattebox, "process", inputs.path, "-o", out.path, "--format", "heic", "-j", "2", "--json"],
                environment: ["MATTEBOX_SYSTEM_ROOT": system.path])
            #expect(result.status == 0, "\(result.errors)")
            return try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any] ?? [:]
        }
        let hot = try run(celsius: 88)
        #expect(hot["highestPressure"] as? String == "critical")
        #expect(hot["peakConcurrency"] as? Int == 1)
        #expect(hot["succeeded"] as? Int == 6)
        let cool = try run(celsius: 40)
        #expect(cool["highestPressure"] as? String == "nominal")
        #expect(cool["peakConcurrency"] as? Int == 2)

        let thermal = TestEnvironment.run(
            [TestEnvironment.mattebox, "thermal"], environment: ["MATTEBOX_SYSTEM_ROOT": system.path])
        #expect(thermal.output.contains("pressure: nominal"))
        #expect(thermal.output.contains("thermal_zone0 soc: 40.0 °C; trips: hot 85.0 °C"))
    }

    /// Issue 57 (6): Ctrl-C in a terminal (SIGINT to the batch's process group) ends a `-j 2` batch
    /// saying it was interrupted, what had finished and that --resume continues; --resume then does the rest.
    @Test func ctrlCSaysWhatFinishedAndResumeContinues() throws {
        let photos = folder.appendingPathComponent("ctrl-c-in")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for index in 1...6 {
            try FileManager.default.copyItem(
                at: TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras/astronaut.jpg"),
                to: photos.appendingPathComponent("a\(index).jpg"))
        }
        let out = folder.appendingPathComponent("ctrl-c-out")
        let process = Process()
        // Its own process group, as a terminal's foreground job: the signal reaches the batch and its workers.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["--wait", TestEnvironment.mattebox, "process", photos.path, "-o", out.path, "-j", "2", "--pipeline", "portrait-mattes"]
        process.environment = ProcessInfo.processInfo.environment.merging(TestEnvironment.isolatedFolders) { _, ours in ours }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        func written() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).filter { $0.hasSuffix(".heic") } }
        #expect(Waiting.until(300) { !written().isEmpty }, "no photo was written")
        // setsid --wait forks: the batch is the child in a group of its own, never this test's.
        let batch = try #require(Self.children(of: process.processIdentifier).first, "the batch under setsid")
        let group = getpgid(batch)
        try #require(group > 1 && group != getpgrp() && group != getsid(0))
        #expect(kill(-group, SIGINT) == 0)
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130, "\(process.terminationStatus): \(said.suffix(600))")
        #expect(said.contains("interrupted:") && said.contains("finished") && said.contains("--resume"), "\(said.suffix(600))")
        let resumed = mattebox(["process", photos.path, "-o", out.path, "-j", "2", "--pipeline", "portrait-mattes", "--resume"])
        #expect(resumed.status == 0, "\(resumed.output)\(resumed.errors)")
        #expect(written().count == 6, "\(written())")
    }
}
