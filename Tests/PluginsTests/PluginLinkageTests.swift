import Foundation
import MatteboxTestSupport
import Testing

/// plugin.h promises that a plugin links nothing of the host: the built-in
/// plugins build on the SDK (and VisionPluginKit) alone, with the orientation
/// math from the leaf module both sides share. A plugin `.so` that defines a
/// symbol of a host module carries a private copy of it, which is the habit a
/// newcomer copying these plugins must not learn.
@Suite struct PluginLinkageTests {
    static let builtIn = ["Orientation", "Mirroring", "HEIFPackaging", "Depth", "PortraitMatte", "SemanticMattes", "PortraitEffect"]
    /// Host modules, as Swift mangles their names (length-prefixed).
    static let hostModules = [
        "MatteboxCore", "MatteboxRuntime", "MatteboxImageIO", "MatteboxHEIF", "MatteboxPluginHost", "MatteboxPipeline",
        "MatteboxCapture", "MatteboxPressure", "MatteboxVision",
    ]

    @Test(arguments: builtIn)
    func builtInPluginDefinesNoHostSymbols(_ name: String) throws {
        let path = TestEnvironment.plugin("Mattebox\(name)")
        let listing = TestEnvironment.run(["/usr/bin/nm", "--defined-only", path])
        #expect(listing.status == 0, "nm \(path): \(listing.errors)")
        let symbols = listing.output.split(separator: "\n").map { $0.split(separator: " ").last.map(String.init) ?? "" }
        #expect(symbols.contains { $0.contains("17MatteboxPluginSDK") }, "the SDK is linked in, so the check sees Swift symbols")
        for module in Self.hostModules {
            let mangled = "\(module.count)\(module)"
            let leaked = symbols.filter { $0.contains(mangled) }
            #expect(leaked.isEmpty, "\(path) defines \(leaked.count) symbols of \(module), e.g. \(leaked.prefix(3))")
        }
    }
}
