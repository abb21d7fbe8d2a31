import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxTestSupport
import MatteboxVision
import Testing

@Suite struct DepthTests {
    @Test func depthPluginFillsTheHolesOfADepthFrame() throws {
        var photo = Photo(primary: TestImages.pattern(width: 64, height: 48))
        let frame = PixelImage(width: 32, height: 24, channels: 1, format: .uint16)
        let samples = frame.data.assumingMemoryBound(to: UInt16.self)
        for i in 0..<(32 * 24) { samples[i] = i % 7 == 0 ? 0 : 1500 } // 1.5 m with holes
        photo.auxiliary[.depth] = frame
        _ = try BuiltPlugins.runner("stages:\n  - plugin: org.mattebox.depth", roles: [.depth]).run(&photo)
        let depth = try #require(photo.auxiliary[.depth])
        #expect(depth.format == .float32 && depth.width == 32)
        let values = (0..<(32 * 24)).map { depth.sample(x: $0 % 32, y: $0 / 32) }
        #expect(values.allSatisfy { abs($0 - 1.5) < 0.01 }, "every hole filled with the surrounding 1.5 m")
        #expect(photo.metadata.notes["depth"]?.contains("depth frame") == true)

        // --aux-png writes the float metres as 16-bit millimetres with the scale stated.
        let folder = try TestEnvironment.scratchDirectory("aux-png")
        let written = try PhotoWriter(directory: folder, format: .png, writeAuxiliaryPNGs: true).write(photo, stem: "frame")
        let png = try #require(written.auxiliary.first { $0.lastPathComponent == "frame.depth.png" })
        let stored = try ImageDecoder.decodeAuxiliaryImage(at: png)
        #expect(stored.format == .uint16 && stored.width == 32)
        #expect((0..<(32 * 24)).allSatisfy { abs(stored.sample(x: $0 % 32, y: $0 / 32) - 1500) <= 10 })
        #expect(String(decoding: try Data(contentsOf: png), as: UTF8.self).contains("mattebox:depth-scale\u{0}1000.0"))
    }

    @Test(.enabled(if: BuiltVisionPlugins.eval != nil, Comment(rawValue: BuiltVisionPlugins.noEval)))
    func depthPluginMatchesAStereoPairAndDropsTheRightView() throws {
        let scene = BuiltVisionPlugins.eval!.appendingPathComponent("stereo/middlebury_v2/cones")
        var photo = try ImageDecoder.decodePhoto(at: scene.appendingPathComponent("imL.png"))
        photo.auxiliary["org.mattebox.stereo-right"] = try ImageDecoder.decodePhoto(at: scene.appendingPathComponent("imR.png")).primary
        _ = try BuiltPlugins.runner(
            "stages:\n  - plugin: org.mattebox.depth\n    params: { max-disparity: 64 }", roles: ["org.mattebox.stereo-right"]
        ).run(&photo)
        let disparity = try #require(photo.auxiliary[.disparity])
        #expect(photo.auxiliary["org.mattebox.stereo-right"] == nil)
        #expect(disparity.width == photo.primary.width && disparity.format == .uint8)
        // Cones: the near cones (left middle) have larger disparity than the far wall (top right).
        #expect(disparity.sample(x: 100, y: 250) > disparity.sample(x: 400, y: 30))
    }

    @Test(.enabled(if: BuiltVisionPlugins.eval != nil, Comment(rawValue: BuiltVisionPlugins.noEval)))
    func depthCommandWritesPFMAndScaledPNG() throws {
        let scene = BuiltVisionPlugins.eval!.appendingPathComponent("stereo/middlebury_v2/venus")
        let folder = try TestEnvironment.scratchDirectory("depth-command")
        let pfm = folder.appendingPathComponent("venus.pfm"), png = folder.appendingPathComponent("venus.png")
        for output in [pfm, png] {
            let result = TestEnvironment.run([
                TestEnvironment.mattebox, "depth", scene.appendingPathComponent("imL.png").path,
                scene.appendingPathComponent("imR.png").path, "-o", output.path, "--max-disparity", "32",
            ])
            #expect(result.status == 0, "\(result.errors)")
        }
        let disparity = try DisparityFile.readPFM(try Data(contentsOf: pfm), name: pfm.path)
        #expect(disparity.width == 434 && disparity.height == 383)
        let truth = try ImageDecoder.decodeAuxiliaryImage(at: scene.appendingPathComponent("groundtruth.png"))
        // Venus truth is disparity × 8; centre pixel within 1 px.
        #expect(abs(disparity.sample(x: 217, y: 190) - truth.sample(x: 217, y: 190) / 8) < 1)
        let scaled = try ImageDecoder.decodeAuxiliaryImage(at: png)
        #expect(scaled.format == .uint16)
        #expect(abs(scaled.sample(x: 217, y: 190) / 256 - disparity.sample(x: 217, y: 190)) < 0.01)
        #expect(String(decoding: try Data(contentsOf: png), as: UTF8.self).contains("\(ScaledPNG.scaleKey("disparity"))\0"))
    }

    @Test(.enabled(if: BuiltVisionPlugins.hasChessboards, "opencv-doc's chessboards are not installed (make deps)"))
    func calibrationFromTheOpenCVChessboardsIsSubPixel() throws {
        let folder = try TestEnvironment.scratchDirectory("calibrate")
        let output = folder.appendingPathComponent("calib.yml")
        // Each camera's views in a folder of its own, as `calibrate --left/--right` expects.
        for side in ["left", "right"] {
            let sideFolder = folder.appendingPathComponent(side)
            try FileManager.default.createDirectory(at: sideFolder, withIntermediateDirectories: true)
            for n in 1...14 {
                let source = BuiltVisionPlugins.chessboards.appendingPathComponent(String(format: "\(side)%02d.jpg", n))
                if FileManager.default.fileExists(atPath: source.path) {
                    try FileManager.default.copyItem(at: source, to: sideFolder.appendingPathComponent(source.lastPathComponent))
                }
            }
        }
        let result = TestEnvironment.run([
            TestEnvironment.mattebox, "calibrate", "--left", folder.appendingPathComponent("left").path,
            "--right", folder.appendingPathComponent("right").path, "--board", "9x6", "--square", "25",
            "-o", output.path, "--json",
        ])
        #expect(result.status == 0, "\(result.errors)")
        let json = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        let rms = try #require(json?["rms"] as? Double)
        #expect(rms < 1, "RMS \(rms) px")
        #expect((json?["pairsUsed"] as? Int ?? 0) >= 10)
        #expect(try String(contentsOf: output, encoding: .utf8).contains("P2"))
    }
}
