import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxTestSupport
import Testing

/// The conventions a newcomer meets in the first hour (found in issue 46, each
/// a test that failed before its fix): runs beside the originals that can be
/// repeated, dry runs that refuse what the run refuses, usage mistakes exiting
/// 64, short names, help that says what happens, several files to inspect, a
/// background batch that ignores SIGINT, a damaged XMP packet written once.
@Suite struct CommandConventionTests {
    private func folder(_ name: String, photos: [String]) throws -> URL {
        let folder = try TestEnvironment.scratchDirectory(name)
        for photo in photos {
            try FileManager.default.copyItem(
                at: TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/\(photo)"),
                to: folder.appendingPathComponent(photo))
        }
        return folder
    }

    private func process(_ arguments: [String]) -> TestEnvironment.CommandResult {
        TestEnvironment.run([TestEnvironment.mattebox, "process"] + arguments)
    }

    /// 1. A run beside the originals can be repeated, resumed and dry-run: its own outputs are not inputs.
    @Test func aRunBesideTheOriginalsCanBeRepeated() throws {
        let photos = try folder("beside", photos: ["orientation-6.jpg", "orientation-3.jpg"])
        let run = ["--pipeline", "upright", "--suffix", "-edited", photos.path, "-o", photos.path]
        for extra: [String] in [[], [], ["--resume"], ["--dry-run"]] {
            let result = process(run + extra)
            #expect(result.status == 0, "\(extra): \(result.output) \(result.errors)")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: photos.path).filter { !$0.hasPrefix(".") }.sorted()
        #expect(names == ["orientation-3-edited.jpg", "orientation-3.jpg", "orientation-6-edited.jpg", "orientation-6.jpg"])
        // A render beside the photos, the documented way, repeats too.
        let portraits = try TestEnvironment.scratchDirectory("beside-render")
        try FileManager.default.copyItem(
            at: TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras/astronaut.jpg"),
            to: portraits.appendingPathComponent("astronaut.jpg"))
        for _ in 0..<2 {
            let render = TestEnvironment.run(
                [TestEnvironment.mattebox, "render", portraits.path, "-o", portraits.path, "--suffix", "-portrait"], timeout: 300)
            #expect(render.status == 0, "\(render.errors)")
        }
        let rendered = try FileManager.default.contentsOfDirectory(atPath: portraits.path).filter { !$0.hasPrefix(".") }.sorted()
        #expect(rendered == ["astronaut-portrait.jpg", "astronaut.jpg"])
    }

    /// 2. --dry-run refuses exactly what the run refuses, and exits as it would; the run refuses before any work.
    @Test func aDryRunRefusesWhatTheRunRefusesAndExitsAsItWould() throws {
        let photos = try folder("dry-in", photos: ["orientation-6.jpg", "orientation-3.jpg"])
        let out = try TestEnvironment.scratchDirectory("dry-out")
        try Data("someone else's".utf8).write(to: out.appendingPathComponent("orientation-6.heic"))
        let dry = process([photos.path, "-o", out.path, "--pipeline", "upright", "--dry-run", "--json"])
        #expect(dry.status == 1, "a dry run with a refusal exits as the run would")
        let planned = (try JSONSerialization.jsonObject(with: Data(dry.output.utf8)) as? [String: Any])?["photos"] as? [[String: Any]] ?? []
        let refusedByDryRun = Set(planned.filter { $0["action"] as? String == "refuse" }.compactMap { $0["input"] as? String })
        let real = process([photos.path, "-o", out.path, "--pipeline", "upright", "--json"])
        #expect(real.status == 1)
        let outcomes = (try JSONSerialization.jsonObject(with: Data(real.output.utf8)) as? [String: Any])?["photos"] as? [[String: Any]] ?? []
        let failed = outcomes.filter { $0["status"] as? String == "failed" }
        #expect(Set(failed.compactMap { $0["input"] as? String }) == refusedByDryRun && refusedByDryRun.count == 1)
        #expect(failed.allSatisfy { ($0["stages"] as? [Any])?.isEmpty ?? true }, "refused before any stage ran")
        #expect(try String(contentsOf: out.appendingPathComponent("orientation-6.heic"), encoding: .utf8) == "someone else's")
    }

    /// 5. Command-line mistakes exit 64, as README says: a background render cannot read, a plugin that is not there.
    @Test func commandLineMistakesExit64() throws {
        let photo = TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-6.jpg").path
        let out = try TestEnvironment.scratchDirectory("exit64")
        for background in [["colour", "--background-colour", "blue"], ["image", "--background-image", "/nope.jpg"]] {
            let run = TestEnvironment.run([TestEnvironment.mattebox, "render", photo, "-o", out.path, "--background"] + background)
            #expect(run.status == 64 && run.errors.contains(background[0] == "colour" ? "six hex digits" : "no readable file"), "\(background): \(run.errors)")
        }
        let inspect = TestEnvironment.run([TestEnvironment.mattebox, "plugins", "inspect", "NOSUCH"])
        #expect(inspect.status == 64 && inspect.errors.contains("no plugin NOSUCH"))
    }

    /// 7. A plugin's short name works wherever a plugin is named: plugins inspect, and a one-stage inline pipeline.
    @Test func shortNamesWorkEverywhere() throws {
        let inspect = TestEnvironment.run([TestEnvironment.mattebox, "plugins", "inspect", "orientation"])
        #expect(inspect.status == 0 && inspect.output.contains("org.mattebox.orientation"), "\(inspect.errors)")
        let photo = TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-6.jpg").path
        let out = try TestEnvironment.scratchDirectory("one-stage")
        let run = TestEnvironment.run([TestEnvironment.mattebox, "process", photo, "-o", out.path, "--pipeline", "orientation", "--json"])
        #expect(run.status == 0, "a one-stage inline pipeline: \(run.errors)")
        let typo = TestEnvironment.run([TestEnvironment.mattebox, "process", photo, "-o", out.path, "--pipeline", "portrait-mates"])
        #expect(typo.status == 64 && typo.errors.contains("did you mean `portrait-mattes`"), "\(typo.errors)")
    }

    /// 4. render --help says what a HEIC input becomes, and it does.
    @Test func renderSaysAndDoesWhatAHEICBecomes() throws {
        let help = TestEnvironment.run([TestEnvironment.mattebox, "render", "--help"])
        #expect(help.output.contains("a HEIC input's other images"))
        guard let shared = TestEnvironment.shared else {
            print("../shared is not beside this clone; the HEIC render is skipped")
            return
        }
        let out = try TestEnvironment.scratchDirectory("render-heic")
        let run = TestEnvironment.run(
            [TestEnvironment.mattebox, "render", shared.appendingPathComponent("heic-samples/pillow_heif__pug.heic").path, "-o", out.path],
            timeout: 300)
        #expect(run.status == 0, "\(run.errors)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("pillow_heif__pug.heic").path))
    }

    /// 9. inspect takes several files (JSON: an array; one unreadable file fails the run, not the others),
    /// and a photo without auxiliary images gets a sheet without an empty overlays row.
    @Test func inspectTakesSeveralFilesAndDrawsNoEmptyRow() throws {
        let photos = ["orientation-6.jpg", "orientation-3.jpg"].map { TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/\($0)").path }
        let json = TestEnvironment.run([TestEnvironment.mattebox, "inspect", "--json"] + photos)
        #expect(json.status == 0)
        #expect((try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [Any])?.count == 2)
        let missing = TestEnvironment.run([TestEnvironment.mattebox, "inspect"] + photos + ["/nope.jpg"])
        #expect(missing.status == 1 && missing.output.contains("orientation-3.jpg") && missing.errors.contains("/nope.jpg"))
        let sheets = try TestEnvironment.scratchDirectory("sheets")
        let run = TestEnvironment.run([TestEnvironment.mattebox, "inspect"] + photos + ["--sheet", sheets.path + "/", "--sheet-height", "100"])
        #expect(run.status == 0, "\(run.errors)")
        let sheet = try ImageDecoder.decodePhoto(at: sheets.appendingPathComponent("orientation-6-sheet.png")).primary
        #expect(sheet.height < 200, "one row: the primary alone, no empty overlays panel (\(sheet.height) px)")
    }

    /// 3 and 8. What portrait-mattes says of a faceless landscape is what it does (a HEIC with its sky
    /// matte), `pipeline list` cuts no word, and the app's docs list its portrait endpoints.
    @Test func descriptionsAgreeWithWhatHappens() throws {
        let list = TestEnvironment.run([TestEnvironment.mattebox, "pipeline", "list"])
        #expect(list.status == 0 && !list.output.contains("….") && list.output.contains("a sky matte"))
        for line in list.output.split(separator: "\n") where line.hasSuffix("…") {
            #expect(line.dropLast().hasSuffix(" "), "cut at a word: \(line)")
        }
        let docs = try String(contentsOf: TestEnvironment.packageRoot.appendingPathComponent("docs/camera-app.md"), encoding: .utf8)
        #expect(docs.contains("/api/library/ID/portrait.jpg") && docs.contains("POST /api/library/ID/portrait"))
        let landscape = "/usr/share/doc/opencv-doc/examples/data/home.jpg"
        guard FileManager.default.fileExists(atPath: landscape) else { return }
        let out = try TestEnvironment.scratchDirectory("landscape")
        let run = TestEnvironment.run(
            [TestEnvironment.mattebox, "process", landscape, "-o", out.path, "--pipeline", "portrait-mattes", "--json"], timeout: 300)
        #expect(run.status == 0, "\(run.errors)")
        let written = try ImageDecoder.decodePhoto(at: out.appendingPathComponent("home.heic"))
        #expect(written.auxiliary[.skyMatte] != nil && written.auxiliary[.portraitMatte] == nil)
    }

    /// 10. A batch a script started in the background (SIGINT ignored, as `&` does) ignores SIGINT to its
    /// process group as a whole: no worker or inference process dies under it, every photo is written.
    @Test func aBackgroundBatchIgnoresSIGINTAsAWhole() throws {
        let photos = try TestEnvironment.scratchDirectory("sigint-in")
        for index in 1...6 {
            try FileManager.default.copyItem(
                at: TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras/astronaut.jpg"),
                to: photos.appendingPathComponent("a\(index).jpg"))
        }
        let out = try TestEnvironment.scratchDirectory("sigint-out")
        let process = Process()
        // Its own process group (setsid: as a job), SIGINT ignored before mattebox starts, as a shell's & leaves it.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = [
            "--wait", "/bin/sh", "-c", "trap '' INT; exec \"$0\" process \"$1\" -o \"$2\" -j 2 --pipeline portrait-mattes --json",
            TestEnvironment.mattebox, photos.path, out.path,
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(TestEnvironment.isolatedFolders) { _, ours in ours }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // Once the workers are at work (the batch's group holds it and two workers), the group gets SIGINT.
        // The group is the batch's own (setsid may fork first, so it is read from /proc, not assumed).
        func processes() -> [(pid: Int32, group: Int32, command: String)] {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.compactMap { entry in
                // After "pid (comm)": state, parent, process group, session.
                guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                    let fields = stat.split(separator: ")").last?.split(separator: " "), fields.count > 3, let group = Int32(fields[2]),
                    let command = try? String(contentsOfFile: "/proc/\(entry)/cmdline", encoding: .utf8)
                else { return nil }
                return (pid, group, command)
            }
        }
        var group: Int32 = 0
        #expect(Waiting.until(60) {
            let all = processes()
            // This test's batch itself: its first argument the mattebox binary (not setsid or the shell naming it
            // too), its output folder this test's own (other tests run batches at the same time).
            guard let batch = all.first(where: {
                $0.command.hasPrefix(TestEnvironment.mattebox + "\0process\0") && $0.command.contains("\0" + out.path + "\0")
            }) else { return false }
            group = batch.group
            return all.filter { $0.group == batch.group }.count >= 3
        }, "the workers started")
        Thread.sleep(forTimeInterval: 1)
        // Never this test's own group: only the batch's, which setsid made.
        try #require(group > 1 && group != getpgrp() && group != getsid(0), "the batch runs in its own process group")
        #expect(kill(-group, SIGINT) == 0, "the batch's process group got SIGINT")
        let report = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(String(decoding: report, as: UTF8.self))")
        let written = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".heic") }
        #expect(written.count == 6)
    }

    /// 12. A JPEG whose XMP packet is damaged comes out with one XMP segment, never the damaged one
    /// beside a repaired one (the damages tried: no NUL after the namespace, bytes that are not UTF-8,
    /// a packet cut short, a processing instruction with no data).
    @Test func aDamagedXMPPacketIsWrittenOnce() throws {
        let source = [UInt8](try Data(contentsOf: TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-6.jpg")))
        let packet = Array(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" dc:format="image/jpeg"/></rdf:RDF></x:xmpmeta>"#.utf8)
        let namespace = Array("http://ns.adobe.com/xap/1.0/".utf8)
        let damaged: [String: [UInt8]] = [
            "no-nul": namespace + packet,
            "not-utf8": namespace + [0] + packet.prefix(80) + [0xFF, 0xFE] + packet.dropFirst(80),
            "cut-short": namespace + [0] + packet.prefix(60),
            "empty-pi": namespace + [0] + Array("<?xpacket?>".utf8) + packet,
        ]
        let folder = try TestEnvironment.scratchDirectory("damaged-xmp")
        for (name, payload) in damaged {
            let segment = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
            try Data(source.prefix(2) + segment + source.dropFirst(2)).write(to: folder.appendingPathComponent("\(name).jpg"))
        }
        for pipeline in ["orientation", "orientation ! invert"] {
            let out = try TestEnvironment.scratchDirectory("damaged-xmp-out")
            let run = TestEnvironment.run([TestEnvironment.mattebox, "process", folder.path, "-o", out.path, "--pipeline", pipeline, "-q"])
            #expect(run.status == 0, "\(run.errors)")
            for name in damaged.keys {
                let written = try Data(contentsOf: out.appendingPathComponent("\(name).jpg"))
                let segments = written.ranges(of: Data(namespace)).count
                #expect(segments <= 1, "\(name) through \(pipeline): \(segments) XMP segments")
            }
        }
    }
}
