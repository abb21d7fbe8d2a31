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

    /// Issue 57 (1): every image above 8 bits written as AVIF aborted its worker inside libaom. A 16-bit
    /// PNG (colour and grey), and the iOS 18 photo (10-bit auxiliary images) with no pipeline and with
    /// the mattes pipeline, are written, open in libheif, and keep their deep images deep.
    @Test func imagesAboveEightBitsAreWrittenNeverAborted() throws {
        let deep = folder.appendingPathComponent("deep")
        try FileManager.default.createDirectory(at: deep, withIntermediateDirectories: true)
        let colour = deep.appendingPathComponent("colour16.png"), grey = deep.appendingPathComponent("grey16.png")
        let wide = deep.appendingPathComponent("wide.v")
        #expect(TestEnvironment.run(["/usr/bin/vips", "cast", selfie.path, wide.path, "ushort", "--shift"]).status == 0)
        #expect(TestEnvironment.run(["/usr/bin/vips", "copy", wide.path, colour.path, "--interpretation", "rgb16"]).status == 0)
        #expect(TestEnvironment.run(["/usr/bin/vips", "colourspace", colour.path, grey.path, "grey16"]).status == 0)
        var inputs = [colour.path, grey.path]
        var pipelines = [["--format", "avif"]]
        if let shared = TestEnvironment.shared {
            inputs.append(shared.appendingPathComponent("heic-samples/openize__iphone_iOS18_tmap+MatteMaps.heic").path)
            pipelines.append(["--format", "avif", "--pipeline", "portrait-mattes"])
        } else {
            print("skipping the iOS 18 sample: ../shared is not here")
        }
        for (index, options) in pipelines.enumerated() {
            let out = folder.appendingPathComponent("deep-out-\(index)")
            let run = mattebox(["process", "-o", out.path] + options + inputs)
            #expect(run.status == 0 && !run.errors.contains("signal"), "\(options): \(run.status) \(run.output)\(run.errors)")
            for input in inputs {
                let output = out.appendingPathComponent(URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent + ".avif")
                #expect(TestEnvironment.run(["heif-info", output.path]).status == 0, "libheif cannot open \(output.lastPathComponent)")
                let inspect = mattebox(["inspect", "--json", output.path])
                let json = (try? JSONSerialization.jsonObject(with: Data(inspect.output.utf8))) as? [String: Any] ?? [:]
                let primary = json["primary"] as? [String: Any] ?? [:]
                if input.hasSuffix(".png") {
                    #expect(primary["bitDepth"] as? Int == 12, "\(output.lastPathComponent): \(primary)")
                }
            }
        }
    }
}
