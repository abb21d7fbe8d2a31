import Foundation
import MatteboxRuntime
import MatteboxTestSupport
import Testing

/// `mattebox plugins new`: the C and the Swift template, written outside the
/// repository, build with their own Makefile and run in their pipeline, and
/// what they do shows in the pixels (a gain of 1.5 brightens the test photo).
@Suite struct PluginTemplateTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("plugins-new") }

    /// The mean sample of a photo, read by libvips.
    func mean(_ url: URL) -> Double {
        Double(TestEnvironment.run(["vips", "avg", url.path]).output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    /// Writes the template with `arguments`, then runs `make try` in it; returns the folder.
    func madeAndTried(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws -> URL {
        let plugin = folder.appendingPathComponent(name)
        let made = TestEnvironment.run([TestEnvironment.mattebox, "plugins", "new", name, "-o", plugin.path] + arguments)
        #expect(made.status == 0, "\(made.errors)")
        let tried = TestEnvironment.run(["make", "-C", plugin.path, "try"], environment: environment, timeout: 900)
        #expect(tried.status == 0, "make try: \(tried.output)\n\(tried.errors)")
        return plugin
    }

    @Test func theCTemplateBuildsAndRunsInItsPipeline() throws {
        let plugin = try madeAndTried("film-grain", ["--lang", "c"])
        let before = mean(plugin.appendingPathComponent("test-photo.jpg"))
        let after = mean(plugin.appendingPathComponent("out/test-photo.jpg"))
        #expect(before > 20 && after > before * 1.3, "gain 1.5: \(before) -> \(after)")
        let listed = TestEnvironment.run([TestEnvironment.mattebox, "plugins", "list"], environment: ["MATTEBOX_PLUGIN_PATH": plugin.path])
        #expect(listed.output.contains("org.example.film-grain"), "\(listed.output)")
        // What it refuses: a name that is not one, a folder that exists, a language it does not know.
        let badName = TestEnvironment.run([TestEnvironment.mattebox, "plugins", "new", "Film_Grain", "-o", folder.appendingPathComponent("x").path])
        #expect(badName.status == 64 && badName.errors.contains("lower-case words joined by hyphens"), "\(badName.errors)")
        let exists = TestEnvironment.run([TestEnvironment.mattebox, "plugins", "new", "film-grain", "-o", plugin.path])
        #expect(exists.status == 1 && exists.errors.contains("already exists"), "\(exists.errors)")
        let language = TestEnvironment.run([TestEnvironment.mattebox, "plugins", "new", "x", "--lang", "rust", "-o", folder.appendingPathComponent("y").path])
        #expect(language.status == 64 && language.errors.contains("c or swift"), "\(language.errors)")
    }

    @Test func theSwiftTemplateBuildsAgainstTheSDKAndRunsInItsPipeline() throws {
        // SwiftPM fetches the checkout's dependencies through the machine's git configuration
        // (a mirror, here); the test's own HOME has none, so that file is named explicitly.
        let realHome = ProcessInfo.processInfo.environment["HOME"] ?? "/root"
        let gitConfig = URL(fileURLWithPath: realHome).appendingPathComponent(".gitconfig").path
        let environment = FileManager.default.fileExists(atPath: gitConfig) ? ["GIT_CONFIG_GLOBAL": gitConfig] : [:]
        let plugin = try madeAndTried("warm-tint", ["--lang", "swift", "--sdk", TestEnvironment.packageRoot.path], environment: environment)
        let before = mean(plugin.appendingPathComponent("test-photo.jpg"))
        let after = mean(plugin.appendingPathComponent("out/test-photo.jpg"))
        #expect(before > 20 && after > before * 1.3, "gain 1.5: \(before) -> \(after)")
    }
}
