import Foundation
import MatteboxTestSupport
import Testing

/// `mattebox evaluate --sky` on the opencv-doc photos and the sky labels made
/// here (Samples/eval/sky-photos.sh puts them together), through the built
/// command and plugins.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/doc/opencv-doc/examples/data/home.jpg"),
                "opencv-doc is not installed (make deps)"))
struct EvaluateCommandTests {
    @Test func skyIsScoredPerPhotoAndAMissingLabelIsNamed() throws {
        let folder = try TestEnvironment.scratchDirectory("evaluate-sky")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sky = folder.appendingPathComponent("sky")
        let made = TestEnvironment.run([TestEnvironment.packageRoot.appendingPathComponent("Samples/eval/sky-photos.sh").path, sky.path])
        #expect(made.status == 0, "\(made.errors)")
        let run = TestEnvironment.run([TestEnvironment.mattebox, "evaluate", folder.appendingPathComponent("none").path, "--sky", sky.path, "--json"])
        #expect(run.status == 0, "\(run.errors)")
        let report = (try? JSONSerialization.jsonObject(with: Data(run.output.utf8))) as? [String: Any] ?? [:]
        let rows = report["sky"] as? [[String: Any]] ?? []
        #expect(rows.compactMap { $0["photo"] as? String } == ["building", "home", "leuvenA", "leuvenB"], "\(report)")
        let scores = rows.compactMap { $0["iou"] as? Double }
        #expect(scores.count == 4 && scores.reduce(0, +) / 4 >= 0.9, "\(scores)")

        try FileManager.default.removeItem(at: sky.appendingPathComponent("labels/home.png"))
        let missing = TestEnvironment.run([TestEnvironment.mattebox, "evaluate", folder.appendingPathComponent("none").path, "--sky", sky.path])
        #expect(missing.status != 0 && missing.errors.contains("labels/home.png"), "\(missing.errors)")
    }
}
