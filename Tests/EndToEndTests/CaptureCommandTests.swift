import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxTestSupport
import Testing

/// `mattebox devices` and `mattebox capture` as a user runs them: replay
/// cameras from a config on a machine without a camera, and a real
/// /dev/video0 when one is present.
@Suite struct CaptureCommandTests {
    private func replayConfig() throws -> (URL, URL) {
        try ReplayCamerasConfig.write(
            "capture-cli",
            cameras: """
                  - name: Desk Back
                    position: back
                    rotation: 90
                    images: [PHOTOS/orientation-1.jpg]
                    sizes: [320x240, 640x480]
                  - name: Desk Front
                    position: front
                    images: [PHOTOS/selfie-front.jpg]
                    format: YUYV
                    sizes: [320x240]
                    fps: [30, 15]
                """)
    }

    @Test func devicesListsReplayCamerasWithTheirFormats() throws {
        let (config, _) = try replayConfig()
        let run = TestEnvironment.run([TestEnvironment.mattebox, "devices", "--json", "--cameras", config.path])
        #expect(run.status == 0, "\(run.errors)")
        let report = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any] ?? [:]
        #expect(report["schemaVersion"] as? Int == 1)
        let cameras = report["cameras"] as? [[String: Any]] ?? []
        let named = cameras.filter { ($0["isReplay"] as? Bool) == true }
        #expect(named.map { $0["name"] as? String } == ["Desk Back", "Desk Front"])
        #expect(named.map { $0["position"] as? String } == ["back", "front"])
        #expect(named.first?["sensorRotation"] as? Int == 90)
        let text = TestEnvironment.run([TestEnvironment.mattebox, "devices", "--cameras", config.path])
        #expect(text.output.contains("* Desk Back (replay)") && text.output.contains("YUYV"))
    }

    @Test func captureWritesPhotosFromAReplayCamera() throws {
        let (config, folder) = try replayConfig()
        let out = folder.appendingPathComponent("out")
        let run = TestEnvironment.run([
            TestEnvironment.mattebox, "capture", "--cameras", config.path, "--count", "2", "--interval", "0.2",
            "--priority", "quality", "--format", "jpeg", "-o", out.path, "--json",
        ])
        #expect(run.status == 0, "\(run.errors)")
        let report = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any] ?? [:]
        let photos = report["photos"] as? [[String: Any]] ?? []
        #expect(photos.count == 2)
        for photo in photos {
            let path = photo["output"] as? String ?? ""
            let decoded = try ImageDecoder.decodePhoto(at: URL(fileURLWithPath: path))
            // The 640x480 still from a sensor mounted at 90°, turned upright by the orientation stage.
            #expect(decoded.primary.width == 480 && decoded.primary.height == 640)
        }
        #expect((report["previewFramesPerSecond"] as? Double ?? 0) > 10)

        let front = TestEnvironment.run([
            TestEnvironment.mattebox, "capture", "--cameras", config.path, "--front", "--priority", "speed", "-o", out.path,
        ])
        // No depth or mattes from the default pipeline: the default format is JPEG, as for `process`.
        #expect(front.status == 0 && front.output.contains(".jpg"), "\(front.errors)")
        let moved = TestEnvironment.run([
            TestEnvironment.mattebox, "capture", "--cameras", config.path, "--quality", "speed", "-o", out.path,
        ])
        #expect(moved.status == 64 && moved.errors.contains("use --priority speed"), "\(moved.errors)")
        let missing = TestEnvironment.run([
            TestEnvironment.mattebox, "capture", "--cameras", config.path, "--device", "/dev/video99", "-o", out.path,
        ])
        #expect(missing.status != 0 && missing.errors.contains("no camera matches /dev/video99"))
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/video0"), "needs a camera at /dev/video0"))
    func captureFromARealCamera() throws {
        let out = try TestEnvironment.scratchDirectory("capture-real")
        let run = TestEnvironment.run([TestEnvironment.mattebox, "capture", "--device", "/dev/video0", "--priority", "speed", "-o", out.path])
        #expect(run.status == 0, "\(run.errors)")
        let photos = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { !$0.hasPrefix(".") }
        #expect(photos.count == 1, "one photo: \(photos)")
        let photo = try ImageDecoder.decodePhoto(at: out.appendingPathComponent(try #require(photos.first)))
        #expect(photo.primary.width > 0 && photo.primary.height > 0)
    }
}
