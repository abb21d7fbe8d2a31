import Foundation
import Hummingbird
import HummingbirdTesting
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxServer
import MatteboxTestSupport
import Testing

/// A plugin's descriptor is the one contract of its parameters: a choice value
/// added to it (the same test plugin built with one value more) is accepted by
/// `--set`, by options set the way `render` sets the portrait effect's, and
/// listed by the app's control JSON, with nothing else changed; without it,
/// each refuses the value, naming the ones there are.
@Suite struct ParameterContractTests {
    static func registry(withGamma: Bool) throws -> PluginRegistry {
        let folder = try TestEnvironment.scratchDirectory("parameter-contract")
        _ = try TestEnvironment.compilePlugin(
            TestEnvironment.fixtures.appendingPathComponent("plugins/choice_param.c"), into: folder,
            defines: withGamma ? ["WITH_GAMMA"] : [])
        return PluginRegistry.discover(
            searchPath: PluginSearchPath(directories: [folder.path]), scanner: .using(executable: TestEnvironment.mattebox))
    }

    /// Validates and instantiates a one-stage pipeline with `mode` set as `origin` sets it.
    static func run(_ registry: PluginRegistry, mode: String, origin: String?) throws {
        let source = PipelineSource(
            text: "stages:\n  - plugin: org.mattebox.tests.choosy\n", path: "choosy",
            settings: [ParameterSetting(stage: "choosy", key: "mode", value: mode, origin: origin)])
        _ = try PipelineRunner(pipeline: source.validate(registry: registry), registry: registry)
    }

    static func controlJSON(_ registry: PluginRegistry) async throws -> [String] {
        let router = Router(context: AppRequestContext.self)
        PluginRoutes(registry: registry).add(to: router)
        let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        return try await PatientClient.serving(application) { client in
            try await client.execute(uri: "/api/plugins/choosy/parameters", method: .get) { response in
                #expect(response.status == .ok)
                let json = try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]
                let plugin = json?["plugin"] as? [String: Any]
                let parameters = plugin?["parameters"] as? [[String: Any]]
                return parameters?.first { $0["key"] as? String == "mode" }?["enumValues"] as? [String] ?? []
            }
        }
    }

    @Test func aChoiceAddedToTheDescriptorIsAcceptedEverywhere() async throws {
        let registry = try Self.registry(withGamma: true)
        try Self.run(registry, mode: "gamma", origin: nil)
        try Self.run(registry, mode: "gamma", origin: "--mode")
        #expect(try await Self.controlJSON(registry) == ["alpha", "beta", "gamma"])
    }

    @Test func withoutItEachPlaceRefusesItNamingTheChoices() async throws {
        let registry = try Self.registry(withGamma: false)
        for origin in [nil, "--mode"] {
            let error = #expect(throws: PipelineError.self) { try Self.run(registry, mode: "gamma", origin: origin) }
            let text = error?.description ?? ""
            #expect(text.contains("\(origin ?? "--set"): org.mattebox.tests.choosy parameter `mode`"), "\(text)")
            #expect(text.contains("alpha") && text.contains("beta"), "\(text)")
        }
        #expect(try await Self.controlJSON(registry) == ["alpha", "beta"])
    }
}
