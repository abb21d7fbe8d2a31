import Foundation
import MatteboxTestSupport
import Testing

/// The mattebox command as a user runs it, with the real built plugins.
@Suite struct CommandLineTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("cli") }

    private func mattebox(_ arguments: String...) -> TestEnvironment.CommandResult {
        TestEnvironment.run([TestEnvironment.mattebox] + arguments)
    }

    private var samples: URL { TestEnvironment.packageRoot.appendingPathComponent("Samples") }

    @Test func pluginsListShowsTheBuiltInAndSamplePlugins() throws {
        let result = mattebox("plugins", "list", "--json")
        #expect(result.status == 0, "\(result.errors)")
        let report = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        let ids = (report?["plugins"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
        #expect(Set(ids).isSuperset(of: [
            "org.mattebox.orientation", "org.mattebox.mirroring", "org.mattebox.samples.invert",
            "org.mattebox.samples.grayscale",
        ]))
    }

    @Test func inspectPrintsParametersWithDefaultsAndRanges() throws {
        let text = mattebox("plugins", "inspect", "org.mattebox.samples.grayscale")
        #expect(text.status == 0)
        #expect(text.output.contains("strength  (double)"))
        #expect(text.output.contains("default 1.0; range 0...1; unit ratio"))
        let json = mattebox("plugins", "inspect", "org.mattebox.orientation", "--json")
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        let plugin = object?["plugin"] as? [String: Any]
        let parameters = plugin?["parameters"] as? [[String: Any]]
        #expect(parameters?.first?["enumValues"] as? [String] == ["normalize", "keep"])
        let missing = mattebox("plugins", "inspect", "org.example.none")
        #expect(missing.status != 0)
        #expect(missing.errors.contains("no plugin org.example.none"))
    }

    @Test func processWritesGoodPhotosFailsBadOnesAndExitsNonZero() throws {
        let truncated = folder.appendingPathComponent("truncated.jpg")
        let whole = try Data(contentsOf: samples.appendingPathComponent("photos/orientation-6.jpg"))
        try whole.prefix(whole.count / 2).write(to: truncated)
        let out = folder.appendingPathComponent("out")
        let result = mattebox(
            "process", samples.appendingPathComponent("photos/orientation-6.jpg").path, truncated.path,
            samples.appendingPathComponent("photos/orientation-8.jpg").path, "-o", out.path,
            "--pipeline", samples.appendingPathComponent("pipelines/upright.yaml").path, "--json")
        #expect(result.status == 1)
        let report = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        #expect(report?["succeeded"] as? Int == 2)
        #expect(report?["failed"] as? Int == 1)
        let photos = report?["photos"] as? [[String: Any]] ?? []
        #expect(photos.map { $0["status"] as? String } == ["ok", "failed", "ok"])
        #expect((photos[1]["error"] as? String)?.contains(truncated.path) == true)
        for name in ["orientation-6.jpg", "orientation-8.jpg"] {
            let header = TestEnvironment.run(["/usr/bin/vipsheader", out.appendingPathComponent(name).path]).output
            #expect(header.contains("96x64"))
            let gps = TestEnvironment.run(["/usr/bin/exiftool", "-s3", "-GPS:all", out.appendingPathComponent(name).path])
            #expect(gps.output.isEmpty)
        }
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("truncated.jpg").path))
    }

    @Test func timingsAndAuxiliaryImagesComeOutWithTheirRoles() throws {
        let depth = folder.appendingPathComponent("depth.png")
        // A 16-bit depth map for the 64x96 stored pixels of orientation-6.jpg.
        #expect(TestEnvironment.run(["/usr/bin/vips", "black", depth.path + "[bitdepth=16]", "32", "48"]).status == 0)
        let out = folder.appendingPathComponent("aux")
        let result = mattebox(
            "process", samples.appendingPathComponent("photos/orientation-6.jpg").path, "--aux", "depth=\(depth.path)",
            "--aux-png", "--timings", "-o", out.path)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("org.mattebox.orientation"))
        #expect(result.output.contains(" ms  ok"))
        let header = TestEnvironment.run(["/usr/bin/vipsheader", out.appendingPathComponent("orientation-6.depth.png").path])
        #expect(header.output.contains("48x32"))
    }

    @Test func invalidPipelinesAreRejectedBeforeAnyPhotoIsRead() throws {
        let pipeline = folder.appendingPathComponent("bad.yaml")
        try "stages:\n  - plugin: org.mattebox.orientation\n    params: { mode: upside }\n".write(to: pipeline, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("never")
        let result = mattebox("process", "/nonexistent.jpg", "-o", out.path, "--pipeline", pipeline.path)
        #expect(result.status != 0)
        #expect(result.errors.contains("bad.yaml:3: org.mattebox.orientation parameter `mode`: expected one of normalize, keep, got upside"))
        #expect(!FileManager.default.fileExists(atPath: out.path))
        let check = mattebox("pipeline", "check", samples.appendingPathComponent("pipelines/selfie-mirrored.yaml").path)
        #expect(check.status == 0)
        #expect(check.output.contains("2. org.mattebox.mirroring"))
    }

    @Test func aWrongAbiPluginOnThePathIsListedAndOthersStillWork() throws {
        let plugins = folder.appendingPathComponent("plugins")
        try FileManager.default.createDirectory(at: plugins, withIntermediateDirectories: true)
        chmod(plugins.path, 0o755)
        _ = try TestEnvironment.compilePlugin(TestEnvironment.fixtures.appendingPathComponent("plugins/wrong_abi.c"), into: plugins)
        _ = try TestEnvironment.compilePlugin(TestEnvironment.fixtures.appendingPathComponent("plugins/crash_on_load.c"), into: plugins)
        let result = TestEnvironment.run(
            ["/usr/bin/env", "MATTEBOX_PLUGIN_PATH=\(plugins.path)", TestEnvironment.mattebox, "plugins", "list"])
        #expect(result.status == 0)
        #expect(result.output.contains("rejected: \(plugins.path)/wrong_abi.so"))
        #expect(result.output.contains("built for plugin ABI 2.0"))
        #expect(result.output.contains("crashed: \(plugins.path)/crash_on_load.so"))
        #expect(result.output.contains("org.mattebox.orientation"))
    }
}
