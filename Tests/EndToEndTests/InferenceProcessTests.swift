import Foundation
import MatteboxTestSupport
import Testing

/// A batch with several workers runs its networks in one inference process
/// (`mattebox inference-server`): each network is held once, the mattes are
/// the same as one worker makes them itself (reading the network again for
/// each photo, as a process running its own lets it go after each), and a crash in inference fails
/// only the photos in flight. The network is a tiny ONNX file written here
/// (blue is the person), so no installed model is needed.
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"),
                "opencv-doc is not installed (make deps)"))
struct InferenceProcessTests {
    let folder: URL
    let pipeline: URL

    init() throws {
        folder = try TestEnvironment.scratchDirectory("inference")
        let model = folder.appendingPathComponent("blue.onnx")
        try TinyONNXModel.convolution(weights: [[0, 0, 20]], biases: [-10], sigmoid: true).write(to: model)
        pipeline = folder.appendingPathComponent("matte.yaml")
        try """
        stages:
          - plugin: org.mattebox.portrait-matte
            params: { faces: haar, model: '\(model.path)', model-input: 64x64, model-mean: '0,0,0', model-std: '1,1,1', model-classes: 'person=0' }
        """.write(to: pipeline, atomically: true, encoding: .utf8)
        let photos = folder.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for name in ["a", "b", "c", "d"] {
            try FileManager.default.copyItem(
                atPath: "/usr/share/doc/opencv-doc/examples/data/messi5.jpg", toPath: photos.appendingPathComponent("\(name).jpg").path)
        }
    }

    func process(jobs: Int, into output: String, environment: [String: String] = [:]) throws -> (TestEnvironment.CommandResult, [String: Any]) {
        let report = folder.appendingPathComponent("\(output).json")
        let result = TestEnvironment.run(
            [TestEnvironment.mattebox, "process", folder.appendingPathComponent("photos").path, "-o", folder.appendingPathComponent(output).path,
             "--pipeline", pipeline.path, "--format", "png", "--aux-png", "-j", "\(jobs)", "--report", report.path],
            environment: environment)
        let parsed = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any] ?? [:]
        return (result, parsed)
    }

    @Test func severalWorkersShareOneCopyOfTheNetworkAndMakeTheSameMattes() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (many, manyReport) = try process(jobs: 3, into: "three")
        #expect(many.status == 0, "\(many.errors)")
        #expect(manyReport["succeeded"] as? Int == 4)
        // Three workers, one network held: the inference process's own count.
        #expect(manyReport["inferenceNetworks"] as? Int == 1, "\(manyReport["inferenceNetworks"] ?? "none")")
        #expect(manyReport["inferenceStarts"] as? Int == 1)
        let (one, oneReport) = try process(jobs: 1, into: "one")
        #expect(one.status == 0, "\(one.errors)")
        #expect(oneReport["inferenceNetworks"] == nil, "one worker runs its network itself")
        for name in ["a", "b", "c", "d"] {
            let file = "\(name).portraitMatte.png"
            let local = try Data(contentsOf: folder.appendingPathComponent("one/\(file)"))
            let shared = try Data(contentsOf: folder.appendingPathComponent("three/\(file)"))
            #expect(local == shared, "\(file): the inference process's matte is the worker's own")
        }
    }

    @Test func aCrashInTheInferenceProcessFailsOnlyThePhotosInFlight() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // The fault switch: the first inference process dies at its first request.
        let (result, report) = try process(jobs: 2, into: "crash", environment: ["MATTEBOX_INFERENCE_ABORT_AT": "1"])
        #expect(result.status == 1, "some photos failed")
        let photos = report["photos"] as? [[String: Any]] ?? []
        let failed = photos.filter { $0["status"] as? String == "failed" }
        #expect(!failed.isEmpty && failed.count <= 2, "only the photos in flight fail: \(failed.map { $0["error"] ?? "" })")
        for photo in failed {
            #expect((photo["error"] as? String)?.contains("the batch's inference process") == true, "\(photo["error"] ?? "")")
        }
        #expect(report["succeeded"] as? Int == 4 - failed.count, "the photos after the crash work")
        #expect(report["inferenceStarts"] as? Int == 2, "started again once")
    }
}
