import Foundation
import MatteboxEvaluation
import MatteboxTestSupport
import Testing

/// Quality floors on the labelled data in ../shared/eval, set a little below
/// what was measured (see the issue 4 closing note), so a regression fails.
@Suite(.enabled(if: BuiltVisionPlugins.eval != nil, Comment(rawValue: BuiltVisionPlugins.noEval)))
struct QualityFloorTests {
    @Test func stereoBeatsPlainSGBMOnEveryScene() throws {
        let rows = try StereoEvaluation.run(
            directory: BuiltVisionPlugins.eval!.appendingPathComponent("stereo/middlebury_v2"), repeats: 1)
        #expect(rows.map(\.scene) == ["tsukuba", "venus", "teddy", "cones"])
        for row in rows {
            #expect(row.mattebox.bad2 < row.baseline.bad2, "\(row.scene): \(row.mattebox.bad2) vs \(row.baseline.bad2)")
        }
        let ours = rows.map(\.mattebox.bad2).reduce(0, +), reference = rows.map(\.baseline.bad2).reduce(0, +)
        #expect(ours <= 0.75 * reference, "mean bad-2 \(ours / 4) vs SGBM \(reference / 4)")
    }

    @Test func fassegSkinHairAndHeadFloors() throws {
        let rows = try FaceEvaluation(registry: BuiltPlugins.registry).fasseg(
            directory: BuiltVisionPlugins.eval!.appendingPathComponent("faceparsing/fasseg_frontal02"))
        #expect(rows.count == 10 && rows.allSatisfy(\.faceFound))
        func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }
        #expect(mean(rows.map(\.skinF1)) >= 0.89)
        #expect(mean(rows.map(\.hairF1)) >= 0.85)
        #expect(mean(rows.map(\.headIoU)) >= 0.95)
        // Closed mouths: no teeth matte on any of them.
        #expect(rows.allSatisfy { !$0.teethMatte })
        // Soft, not cut out: most pixels along the hair edge are between 0 and 255.
        #expect(rows.allSatisfy { $0.hairF1 < 0.2 || $0.hairSoftEdge > 0.8 })
    }

    @Test func lapaTeethAreFound() throws {
        let row = try FaceEvaluation(registry: BuiltPlugins.registry).lapa(
            directory: BuiltVisionPlugins.eval!.appendingPathComponent("faceparsing/lapa_sample"))
        #expect(row.teethFound)
        #expect(row.teethF1 >= 0.68, "measured 0.73 with the redness growth (0.57 before)")
        // LaPa labels eyebrows apart from hair; the matte is asked without them.
        #expect(row.hairF1 >= 0.88, "measured 0.94")
        #expect(row.skinF1 >= 0.8)
    }
}

/// Stereo on a scene that ships with opencv-doc (installed by `make deps`), so
/// it runs without ../shared.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/doc/opencv-doc/examples/data/aloeGT.png"),
                "opencv-doc is not installed (make deps)"))
struct HeldOutStereoTests {
    /// Aloe (Middlebury 2006, shipped by opencv-doc) was not used for tuning.
    @Test func stereoBeatsPlainSGBMOnASceneNotTunedOn() throws {
        let data = URL(fileURLWithPath: "/usr/share/doc/opencv-doc/examples/data")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mattebox-aloe-\(getpid())/aloe")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        for name in ["aloeL.jpg", "aloeR.jpg", "aloeGT.png"] {
            try FileManager.default.copyItem(at: data.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        try Data(#"{"name": "aloe", "left": "aloeL.jpg", "right": "aloeR.jpg", "truth": "aloeGT.png", "scale": 1, "range": 224}"#.utf8)
            .write(to: folder.appendingPathComponent("scene.json"))
        let rows = try StereoEvaluation.run(directory: folder.deletingLastPathComponent(), repeats: 1)
        #expect(rows.map(\.scene) == ["aloe"])
        #expect(rows.first?.scored == "all with known truth")
        let row = try #require(rows.first)
        // Measured: 7.4 vs 16.2 (the left border matched instead of filled).
        #expect(row.mattebox.bad2 < 0.75 * row.baseline.bad2, "aloe bad-2 \(row.mattebox.bad2) vs SGBM \(row.baseline.bad2)")
    }
}
