import Foundation
import MatteboxCore
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxRuntime
import MatteboxTestSupport
import Testing

/// Calling real plugins in this process through the C ABI.
@Suite struct PluginCallTests {
    let folder: URL
    let scanner = PluginScanner(command: [TestEnvironment.mattebox, "plugins", "scan-file"])

    init() throws { folder = try TestEnvironment.scratchDirectory("call") }

    private func registry(compiling sources: [URL]) throws -> PluginRegistry {
        for source in sources { _ = try TestEnvironment.compilePlugin(source, into: folder) }
        return PluginRegistry.discover(searchPath: PluginSearchPath(directories: [folder.path]), scanner: scanner)
    }

    @Test func cSamplePluginBuiltWithCCAloneInvertsThePhoto() throws {
        let source = TestEnvironment.packageRoot.appendingPathComponent("Samples/plugins/c-invert/invert.c")
        let plugins = try registry(compiling: [source])
        let instance = try plugins.instantiate("org.mattebox.samples.invert", parameters: [:])
        let original = TestImages.pattern()
        var photo = Photo(primary: original.copy())
        try instance.process(&photo, services: ImageIOPhotoServices())
        for (x, y) in [(0, 0), (17, 9), (47, 31)] {
            for channel in 0..<3 {
                #expect(photo.primary.sample(x: x, y: y, channel: channel) == 255 - original.sample(x: x, y: y, channel: channel))
            }
        }
        let half = try plugins.instantiate("org.mattebox.samples.invert", parameters: ["amount": .double(0)])
        var untouched = Photo(primary: original.copy())
        try half.process(&untouched, services: ImageIOPhotoServices())
        #expect(untouched.primary.hasSamePixels(as: original))
    }

    @Test func aFailingPhotoCarriesThePluginsMessageAndTheNextOneSucceeds() throws {
        let plugins = try registry(compiling: [TestEnvironment.fixtures.appendingPathComponent("plugins/fail_on_narrow.c")])
        let instance = try plugins.instantiate("org.mattebox.tests.fail-on-narrow", parameters: ["min-width": .int(40)])
        var narrow = Photo(primary: TestImages.pattern(width: 30, height: 20))
        let error = #expect(throws: MatteboxError.self) { try instance.process(&narrow, services: ImageIOPhotoServices()) }
        #expect(error?.message == "stage org.mattebox.tests.fail-on-narrow could not process the photo (unsupported format): photo is 30 px wide, narrower than 40")
        var wide = Photo(primary: TestImages.pattern(width: 48, height: 20))
        try instance.process(&wide, services: ImageIOPhotoServices())
        #expect(wide.auxiliary[ImageRole("org.mattebox.tests.seen")]?.width == 4)
    }

    @Test func unknownPluginIdsAreAnError() throws {
        let plugins = try registry(compiling: [])
        #expect(throws: MatteboxError.self) { try plugins.instantiate("org.example.missing", parameters: [:]) }
    }
}
