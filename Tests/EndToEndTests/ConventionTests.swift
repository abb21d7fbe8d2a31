import Foundation
import MatteboxTestSupport
import Testing

/// The conventions of vips, exiftool and ffmpeg users: exit codes, help,
/// suggestions, machine output, verbosity, --version, and a plugin registry
/// that is not rebuilt on every command.
@Suite struct ConventionTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("conventions") }

    private func mattebox(_ arguments: String..., environment: [String: String] = [:]) -> TestEnvironment.CommandResult {
        TestEnvironment.run([TestEnvironment.mattebox] + arguments, environment: environment)
    }

    private func json(_ result: TestEnvironment.CommandResult) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any] ?? [:]
    }

    @Test func commandLineMistakesExit64WithASuggestion() {
        let typo = mattebox("proces", "x.jpg")
        #expect(typo.status == 64 && typo.errors.contains("did you mean `process`?"), "\(typo.errors)")
        let help = mattebox("help", "nonexist")
        #expect(help.status == 64 && help.errors.contains("no command `nonexist`"), "\(help.errors)")
        let jobs = mattebox("process", "-j", "-3", "x.jpg", "-o", folder.path)
        #expect(jobs.status == 64 && jobs.errors.contains("--jobs must be at least 1"), "\(jobs.errors)")
        // A subcommand's mistake shows that subcommand's usage, not the root's.
        #expect(jobs.errors.contains("Usage: mattebox process"), "\(jobs.errors)")
        let plugin = mattebox("plugins", "inspect", "org.mattebox.mirorring")
        #expect(plugin.status == 64 && plugin.errors.contains("did you mean `org.mattebox.mirroring`?"), "\(plugin.errors)")
        let empty = mattebox("process", folder.path, "-o", folder.appendingPathComponent("out").path)
        #expect(empty.status == 1 && empty.errors.contains("no photos found"), "a data problem is 1, not 64: \(empty.errors)")
    }

    @Test func pipelineMistakesSuggestTheNameMeant() throws {
        let pipeline = folder.appendingPathComponent("p.yaml")
        try "stages:\n  - plugin: org.mattebox.orientaton\n  - plugin: org.mattebox.mirroring\n    params: { polcy: auto }\n"
            .write(to: pipeline, atomically: true, encoding: .utf8)
        let check = mattebox("pipeline", "check", pipeline.path)
        #expect(check.status == 64, "the pipeline named on the command line cannot run: a command-line mistake")
        #expect(check.errors.contains("did you mean `org.mattebox.orientation`?"), "\(check.errors)")
        #expect(check.errors.contains("did you mean `policy`?"), "\(check.errors)")
        let named = mattebox("pipeline", "check", "portrait-mates")
        #expect(named.status == 64)
        #expect(named.errors.contains("did you mean `portrait-mattes`?"), "\(named.errors)")
        // A plugin's name is a one-stage pipeline (issue 46), named pipelines first.
        let plugin = mattebox("pipeline", "check", "portrait-matte")
        #expect(plugin.status == 0 && plugin.output.contains("1 stage(s), valid"), "\(plugin.output) \(plugin.errors)")
        #expect(mattebox("pipeline", "check", "portrait-mattes").status == 0, "named pipelines resolve from the data folders")
    }

    @Test func jsonHasASchemaVersionNamesAndNulls() throws {
        let inspect = try json(mattebox("plugins", "inspect", "org.mattebox.orientation", "--json"))
        #expect(inspect["schemaVersion"] as? Int == 1)
        let parameter = ((inspect["plugin"] as? [String: Any])?["parameters"] as? [[String: Any]])?.first ?? [:]
        #expect(parameter["defaultValue"] as? String == "normalize")
        #expect(parameter["type"] as? String == "enum")
        #expect(parameter.keys.contains("minimum") && parameter["minimum"] is NSNull, "absent values are null: \(parameter)")
        // A machine of no thermal zones (a system root made here), whatever this machine's state.
        let root = folder.appendingPathComponent("cool-root")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("sys/class/thermal"), withIntermediateDirectories: true)
        let thermal = try json(mattebox("thermal", "--json", environment: ["MATTEBOX_SYSTEM_ROOT": root.path]))
        #expect(thermal["level"] as? String == "nominal", "\(thermal)")
        #expect(thermal.keys.contains("factors"), "\(thermal)")
    }

    @Test func cpuPressureIsReportedButSkipsNothing() throws {
        let root = folder.appendingPathComponent("root")
        let zone = root.appendingPathComponent("sys/class/thermal/thermal_zone0")
        try FileManager.default.createDirectory(at: zone, withIntermediateDirectories: true)
        try "45000\n".write(to: zone.appendingPathComponent("temp"), atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("proc/pressure"), withIntermediateDirectories: true)
        try "some avg10=97.00 avg60=90.00 avg300=80.00 total=1\n"
            .write(to: root.appendingPathComponent("proc/pressure/cpu"), atomically: true, encoding: .utf8)
        let state = try json(mattebox("thermal", "--json", environment: ["MATTEBOX_SYSTEM_ROOT": root.path]))
        #expect(state["level"] as? String == "nominal", "\(state)")
        let factors = state["factors"] as? [[String: Any]] ?? []
        #expect(factors.contains { $0["kind"] as? String == "cpuPressure" && $0["level"] as? String == "critical" })
        let watch = mattebox("thermal", "--watch", "0")
        #expect(watch.status == 64 && watch.errors.contains("greater than 0"), "\(watch.errors)")
    }

    @Test func verbosityAndTheLogVariable() throws {
        let bad = mattebox("plugins", "list", environment: ["MATTEBOX_LOG": "loud"])
        #expect(bad.errors.contains("MATTEBOX_LOG=loud is not one of debug, info, warning, error"), "\(bad.errors)")
        let pipeline = folder.appendingPathComponent("optional.yaml")
        try "stages:\n  - plugin: org.mattebox.orientation\n    required: false\n    params: { mode: keep }\n"
            .write(to: pipeline, atomically: true, encoding: .utf8)
        let photo = TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-1.jpg").path
        let verbose = mattebox("process", photo, "-o", folder.appendingPathComponent("v").path, "-vv", "--pipeline", pipeline.path)
        let quiet = mattebox("process", photo, "-o", folder.appendingPathComponent("q").path, "-q", "--pipeline", pipeline.path)
        #expect(verbose.status == 0 && quiet.status == 0)
        #expect(quiet.errors.count < verbose.errors.count, "-q prints less than -vv:\n\(quiet.errors)\n---\n\(verbose.errors)")
    }

    @Test func aPhotoWithoutAFaceSaysSoOnce() {
        let photo = TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-1.jpg").path
        let run = mattebox("process", photo, "-o", folder.appendingPathComponent("faces").path, "--pipeline", "portrait-mattes")
        #expect(run.status == 0, "\(run.errors)")
        let lines = (run.output + run.errors).split(separator: "\n").filter { $0.contains("no face found") }
        #expect(lines.count == 1 && lines[0].contains("portraitMatte, semanticMattes"), "\(run.output)\n\(run.errors)")
    }

    /// Issue 57 (9): a code fence opened and never closed turned a whole page into code. Every page a
    /// newcomer reads (README, docs, each folder's README) closes each fence it opens.
    @Test func everyPageClosesItsCodeFences() throws {
        let root = TestEnvironment.packageRoot
        var pages = [root.appendingPathComponent("README.md"), root.appendingPathComponent("ARCHITECTURE.md")]
        for folder in ["docs", "Sources", "Plugins"] {
            let walker = FileManager.default.enumerator(at: root.appendingPathComponent(folder), includingPropertiesForKeys: nil)
            pages += (walker?.compactMap { $0 as? URL } ?? []).filter { $0.pathExtension == "md" }
        }
        #expect(pages.count > 40, "\(pages.count) pages found")
        for page in pages {
            let fences = try String(contentsOf: page, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                .filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("```") }.count
            #expect(fences % 2 == 0, "\(page.path): \(fences) fence lines, one left open")
        }
    }

    @Test func versionListsTheLibraries() {
        let version = mattebox("--version")
        for name in ["mattebox ", "plugin ABI 1.", "libvips 8.", "libheif 1.", "OpenCV 4."] {
            #expect(version.output.contains(name), "\(version.output)")
        }
    }

    @Test func capturedPhotosCarryEXIFAndTheSameNotesAsProcess() throws {
        let out = folder.appendingPathComponent("shots")
        let run = mattebox("capture", "--cameras", TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras.yaml").path,
                           "-o", out.path, "--json")
        #expect(run.status == 0, "\(run.errors)")
        let report = try json(run)
        let shot = (report["photos"] as? [[String: Any]])?.first ?? [:]
        #expect(shot["notes"] is [String: Any] && shot["absent"] == nil, "\(shot)")
        let path = shot["output"] as? String ?? ""
        let exif = TestEnvironment.run(["/usr/bin/exiftool", "-s", "-Make", "-Model", "-Software", "-DateTimeOriginal",
                                        "-SubSecTimeOriginal", "-OffsetTimeOriginal", path])
        for tag in ["Make", "Model", "Software", "DateTimeOriginal", "SubSecTimeOriginal", "OffsetTimeOriginal"] {
            #expect(exif.output.contains("\(tag) "), "\(tag) missing:\n\(exif.output)")
        }
        #expect(exif.output.contains("Mattebox"))
    }

    /// A plugin file that answers as `id`, compiled from the sample C plugin.
    private func plugin(id: String, at path: URL) throws {
        let source = try String(
            contentsOf: TestEnvironment.packageRoot.appendingPathComponent("Samples/plugins/c-invert/invert.c"), encoding: .utf8)
        let renamed = folder.appendingPathComponent("\(id).c")
        try source.replacingOccurrences(of: "\"org.mattebox.samples.invert\"", with: "\"\(id)\"")
            .write(to: renamed, atomically: true, encoding: .utf8)
        let built = try TestEnvironment.compilePlugin(renamed, into: folder, name: "\(id).so")
        _ = try? FileManager.default.removeItem(at: path)
        try FileManager.default.moveItem(atPath: built, toPath: path.path)
        chmod(path.path, 0o755)
    }

    @Test func theRegistryCacheIsUsedAndNeverTrustedBlindly() throws {
        let plugins = folder.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        chmod(plugins.path, 0o755)
        let file = plugins.appendingPathComponent("extra.so")
        try plugin(id: "org.example.first", at: file)
        let environment = ["MATTEBOX_PLUGIN_PATH": plugins.path, "XDG_CACHE_HOME": folder.appendingPathComponent("cache").path]
        func ids() throws -> [String] {
            let list = try json(mattebox("plugins", "list", "--json", environment: environment))
            return (list["plugins"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
        }
        #expect(try ids().contains("org.example.first"))
        let cache = folder.appendingPathComponent("cache/mattebox/plugin-registry.json")
        #expect(FileManager.default.fileExists(atPath: cache.path))
        // The cache is what answers for an unchanged file: edit the cached name and it shows.
        let cached = try String(contentsOf: cache, encoding: .utf8)
        try cached.replacingOccurrences(of: "org.example.first", with: "org.example.cached").write(to: cache, atomically: true, encoding: .utf8)
        #expect(try ids().contains("org.example.cached"))
        // A changed file is scanned again.
        try plugin(id: "org.example.second", at: file)
        #expect(try ids().contains("org.example.second"))
        // Safety is checked every time, cached or not.
        chmod(file.path, 0o777)
        let list = mattebox("plugins", "list", environment: environment)
        #expect(list.output.contains("rejected: \(file.path)") && !list.output.contains("org.example.second  "), "\(list.output)")
    }

    /// The vision library is loaded on first use; a mattebox copied away from
    /// it says which places it tried and how to get it back, and writes nothing.
    @Test func aMissingVisionLibraryIsNamedWithEveryPlaceTried() throws {
        let alone = folder.appendingPathComponent("alone/bin")
        try FileManager.default.createDirectory(at: alone, withIntermediateDirectories: true)
        // Copied by cp, not by this process: a file this (multi-threaded) process has open for writing
        // can be inherited by another test's child process, and running it then fails with ETXTBSY.
        let copy = TestEnvironment.run(["/bin/cp", TestEnvironment.mattebox, alone.appendingPathComponent("mattebox").path])
        try #require(copy.status == 0, "\(copy.errors)")
        let data = "/usr/share/doc/opencv-doc/examples/data"
        let output = folder.appendingPathComponent("alone/d.pfm")
        let run = TestEnvironment.run([alone.appendingPathComponent("mattebox").path, "depth", "\(data)/aloeL.jpg", "\(data)/aloeR.jpg", "-o", output.path])
        #expect(run.status == 1, "\(run.status) \(run.errors)")
        #expect(run.errors.contains("the vision library (OpenCV) could not be loaded"), "\(run.errors)")
        #expect(run.errors.contains(alone.appendingPathComponent("libMatteboxCVision.so").path), "names the place beside the binary: \(run.errors)")
        #expect(run.errors.contains("lib/mattebox/libMatteboxCVision.so"), "and the installation's: \(run.errors)")
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }
}
