import Foundation
import MatteboxTestSupport
import Testing

/// `--format avif`: the HEIF packaging stage's layout with AV1 images, which
/// libheif's own tools open and list, and a request the pipeline cannot honour
/// (another format, or the stage naming HEIC) refused before anything is written.
@Suite struct AVIFOutputTests {
    let folder: URL
    let selfie = TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/selfie-front.jpg")

    init() throws { folder = try TestEnvironment.scratchDirectory("avif-output") }

    private func mattebox(_ arguments: [String]) -> TestEnvironment.CommandResult {
        TestEnvironment.run([TestEnvironment.mattebox] + arguments)
    }

    @Test func anAVIFHoldsTheDepthAndMatteAndLibheifListsThem() throws {
        let run = mattebox(["process", "--pipeline", "heif-package", "--format", "avif", "-o", folder.path, selfie.path])
        #expect(run.status == 0, "\(run.errors)")
        let output = folder.appendingPathComponent("selfie-front.avif")
        let info = TestEnvironment.run(["heif-info", output.path])
        #expect(info.status == 0)
        #expect(info.output.contains("main brand: avif") && info.output.contains("depth channel: yes"), "\(info.output)")

        let inspect = mattebox(["inspect", "--json", output.path])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(inspect.output.utf8)) as? [String: Any])
        let auxiliary = try #require(json["auxiliary"] as? [[String: Any]])
        #expect(Set(auxiliary.compactMap { $0["role"] as? String }) == ["depth", "portraitMatte"])
        #expect(auxiliary.allSatisfy { ($0["image"] as? [String: Any])?["coding"] as? String == "av01" }, "\(auxiliary)")
        let depth = try #require(auxiliary.first { $0["role"] as? String == "depth" }?["depth"] as? [String: Any])
        #expect(depth["nearestDepth"] != nil && depth["farthestDepth"] != nil, "the depth's range is kept: \(depth)")
    }

    /// The stage leaves the quality to the run: `--quality` is honoured (it was overridden by the stage's
    /// 75 before), and without it each format has its own default (AVIF's 90 is a larger file than 40).
    @Test func theRunsQualityIsHonouredAndAVIFHasItsOwnDefault() throws {
        let photo = TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras/astronaut.jpg").path
        var sizes: [Int] = []
        for (name, quality) in [("default", [String]()), ("low", ["--quality", "40"])] {
            let out = folder.appendingPathComponent(name)
            let run = mattebox(["process", "--pipeline", "heif-package", "--format", "avif", "-o", out.path, photo] + quality)
            #expect(run.status == 0, "\(run.errors)")
            sizes.append(try Data(contentsOf: out.appendingPathComponent("astronaut.avif")).count)
        }
        #expect(sizes[1] < sizes[0] * 3 / 4, "quality 40 against the default: \(sizes)")
    }

    @Test func aFormatTheStageCannotWriteIsRefusedBeforeAnythingIsWritten() throws {
        let jpeg = mattebox(["process", "--pipeline", "heif-package", "--format", "jpeg", "-o", folder.path, selfie.path])
        #expect(jpeg.status == 64 && jpeg.errors.contains("--format jpeg conflicts with the org.mattebox.heif stage"), "\(jpeg.errors)")
        let named = mattebox([
            "process", "--pipeline", "heif-package", "--set", "heif.format=heic", "--format", "avif", "-o", folder.path, selfie.path,
        ])
        #expect(named.status == 64 && named.errors.contains("which writes heic"), "\(named.errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.isEmpty)
    }
}
