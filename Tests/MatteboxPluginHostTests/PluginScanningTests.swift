import Foundation
import MatteboxCore
import MatteboxPluginHost
import MatteboxTestSupport
import Testing

/// Discovery through the real out-of-process scanner (the built mattebox
/// command) over real plugins compiled by `cc` against the header alone.
@Suite struct PluginScanningTests {
    let folder: URL
    /// A generous limit for plugins that load: only a failure when reached, never a speed claim.
    let scanner = PluginScanner(command: [TestEnvironment.mattebox, "plugins", "scan-file"], timeout: 60)
    /// A short one for the plugin that hangs: it never finishes, however fast the machine.
    let impatientScanner = PluginScanner(command: [TestEnvironment.mattebox, "plugins", "scan-file"], timeout: 3)

    init() throws { folder = try TestEnvironment.scratchDirectory("scan") }

    private func fixture(_ name: String) -> URL { TestEnvironment.fixtures.appendingPathComponent("plugins/\(name).c") }

    private var invertSource: URL {
        TestEnvironment.packageRoot.appendingPathComponent("Samples/plugins/c-invert/invert.c")
    }

    @Test func badPluginsAreReportedAndGoodOnesStillLoad() throws {
        for name in ["wrong_abi", "crash_on_load", "no_entry_point"] {
            _ = try TestEnvironment.compilePlugin(fixture(name), into: folder)
        }
        let hanging = folder.appendingPathComponent("hanging")
        try FileManager.default.createDirectory(at: hanging, withIntermediateDirectories: true)
        let hang = try TestEnvironment.compilePlugin(fixture("hang_on_load"), into: hanging)
        #expect(impatientScanner.scan(hang).status == .timeout)
        _ = try TestEnvironment.compilePlugin(invertSource, into: folder)
        let registry = PluginRegistry.discover(searchPath: PluginSearchPath(directories: [folder.path]), scanner: scanner)
        let byName = Dictionary(uniqueKeysWithValues: registry.scans.map { (($0.path as NSString).lastPathComponent, $0) })

        #expect(byName["wrong_abi.so"]?.status == .rejected)
        #expect(byName["wrong_abi.so"]?.reason?.contains("plugin ABI 2.0") == true)
        #expect(byName["crash_on_load.so"]?.status == .crashed)
        #expect(byName["crash_on_load.so"]?.reason?.contains("SIGSEGV") == true)
        #expect(byName["no_entry_point.so"]?.status == .rejected)
        #expect(byName["no_entry_point.so"]?.reason?.contains("missing entry point mbx_plugin_get") == true)
        #expect(byName["invert.so"]?.status == .ok)
        #expect(registry.available.map(\.description.id) == ["org.mattebox.samples.invert"])
    }

    /// Beyond a major version: a newer minor ABI, a descriptor smaller than
    /// this ABI's, an id that is not reverse-DNS and a missing callback are
    /// each refused with the reason, and a good plugin beside them loads.
    @Test func brokenDescriptorsAreRefusedWithTheirReason() throws {
        let expected = [
            "NEWER_MINOR": "newer than this Mattebox's", "SMALL_STRUCT": "struct_size 16 is smaller",
            "BAD_ID": "no reverse-DNS id", "NO_PROCESS": "lacks create, process or destroy",
        ]
        for variant in expected.keys {
            _ = try TestEnvironment.compilePlugin(fixture("broken_descriptor"), into: folder, name: "\(variant).so", defines: [variant])
        }
        _ = try TestEnvironment.compilePlugin(invertSource, into: folder)
        let registry = PluginRegistry.discover(searchPath: PluginSearchPath(directories: [folder.path]), scanner: scanner)
        let byName = Dictionary(uniqueKeysWithValues: registry.scans.map { (($0.path as NSString).lastPathComponent, $0) })
        for (variant, reason) in expected {
            let name = "\(variant).so"
            #expect(byName[name]?.status == .rejected, "\(name): \(byName[name]?.status.rawValue ?? "not scanned")")
            #expect(byName[name]?.reason?.contains(reason) == true, "\(name): \(byName[name]?.reason ?? "")")
        }
        #expect(registry.available.map(\.description.id) == ["org.mattebox.samples.invert"])
    }

    @Test func worldWritableFoldersAreRefusedWithPathAndMode() throws {
        let open = folder.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: true)
        let plugin = try TestEnvironment.compilePlugin(invertSource, into: open)
        chmod(open.path, 0o777)
        let result = scanner.scan(plugin)
        #expect(result.status == .rejected)
        #expect(result.reason?.contains("\(open.path) is world-writable (mode 777)") == true)

        chmod(open.path, 0o755)
        chmod(plugin, 0o775)
        #expect(scanner.scan(plugin).reason?.contains("group-writable (mode 775)") == true)
        chmod(plugin, 0o755)
        #expect(scanner.scan(plugin).status == .ok)
    }

    @Test func symbolicLinksAreRefused() throws {
        let plugin = try TestEnvironment.compilePlugin(invertSource, into: folder)
        let link = folder.appendingPathComponent("link.so")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: plugin)
        #expect(scanner.scan(link.path).reason?.contains("symbolic link") == true)
    }

    @Test func descriptorsAreReadCompletely() throws {
        let plugin = try TestEnvironment.compilePlugin(invertSource, into: folder)
        let description = try #require(scanner.scan(plugin).plugins.first)
        #expect(description.id == "org.mattebox.samples.invert")
        #expect(description.version == "1.0.0" && description.abiVersion == "1.3")
        #expect(description.threadSafety == .concurrent)
        #expect(description.inputs.map(\.role) == [.primary])
        let amount = try #require(description.parameter("amount"))
        #expect(amount.type == .double && amount.defaultValue == .double(1))
        #expect(amount.minimum == 0 && amount.maximum == 1 && amount.unit == "ratio")
    }

    @Test func firstPluginForAnIdWinsAndLaterOnesAreShadowed() throws {
        let first = folder.appendingPathComponent("a"), second = folder.appendingPathComponent("b")
        for sub in [first, second] { try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true) }
        let winner = try TestEnvironment.compilePlugin(invertSource, into: first)
        let loser = try TestEnvironment.compilePlugin(invertSource, into: second)
        let registry = PluginRegistry.discover(
            searchPath: PluginSearchPath(directories: [first.path, second.path]), scanner: scanner)
        #expect(registry.plugin("org.mattebox.samples.invert")?.path == winner)
        #expect(registry.shadowed.map(\.path) == [loser])
    }
}
