import Foundation
import MatteboxCore
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxTestSupport
import Testing

/// Validation against the real built plugins, before any pixel flows.
@Suite struct PipelineValidationTests {
    static let registry = PluginRegistry.discover(
        searchPath: PluginSearchPath(directories: [TestEnvironment.binDirectory.path]),
        scanner: .using(executable: TestEnvironment.mattebox))

    private func validate(_ text: String, roles: Set<ImageRole> = []) throws -> ValidatedPipeline {
        try PipelineValidator.validate(try PipelineFile.parse(text, path: "p.yaml"), registry: Self.registry, providedRoles: roles)
    }

    private func problems(_ text: String) -> String {
        do {
            _ = try validate(text)
            return ""
        } catch {
            return "\(error)"
        }
    }

    @Test func aGoodPipelineGetsTypedParametersAndDefaultsStayImplicit() throws {
        let pipeline = try validate("""
            stages:
              - plugin: org.mattebox.orientation
                params: { strip-location: yes }
              - plugin: org.mattebox.samples.grayscale
                required: false
                params:
                  strength: 0.25
            """)
        #expect(pipeline.stages.map(\.plugin.id) == ["org.mattebox.orientation", "org.mattebox.samples.grayscale"])
        #expect(pipeline.stages[0].parameters == ["strip-location": .bool(true)])
        #expect(pipeline.stages[1].parameters == ["strength": .double(0.25)])
        #expect(pipeline.stages[1].required == false)
    }

    @Test func everyProblemIsReportedWithItsLine() {
        let report = problems("""
            stages:
              - plugin: org.example.nothing
              - plugin: org.mattebox.orientation
                params:
                  mode: sideways
                  colour: red
                  strip-location: "true"
              - plugin: org.mattebox.samples.grayscale
                params: { strength: 1.5 }
              - plugin: org.mattebox.samples.invert
                params: { amount: lots }
            """)
        #expect(report.contains("p.yaml:2: unknown plugin `org.example.nothing`"))
        #expect(report.contains("p.yaml:5: org.mattebox.orientation parameter `mode`: expected one of normalize, keep, got sideways"))
        #expect(report.contains("p.yaml:6: unknown parameter `colour` for org.mattebox.orientation (known: mode, strip-location)"))
        #expect(report.contains("p.yaml:7: org.mattebox.orientation parameter `strip-location`: expected true or false, got \"true\""))
        #expect(report.contains("p.yaml:9: org.mattebox.samples.grayscale parameter `strength`: 1.5 is above the maximum 1"))
        #expect(report.contains("p.yaml:11: org.mattebox.samples.invert parameter `amount`: expected a number, got lots"))
    }

    @Test func structuralMistakesAreCaught() {
        #expect(problems("stages: 3").contains("missing `stages:` list"))
        #expect(problems("stagez: []").contains("p.yaml:1: unknown key `stagez`"))
        #expect(problems("stages:\n  - params: {}").contains("p.yaml:2: stage has no `plugin:` id"))
        #expect(problems("stages: [ {plugin: a").contains("not valid YAML"))
    }
}
