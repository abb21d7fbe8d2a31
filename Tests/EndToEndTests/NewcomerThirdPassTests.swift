import Foundation
import MatteboxTestSupport
import Testing

/// A newcomer's first hour, third pass (issue 46): each finding as a test
/// that failed before its fix.
@Suite struct NewcomerThirdPassTests {
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
}
