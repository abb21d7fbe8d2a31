import Foundation
import MatteboxCore
import MatteboxEvaluation
import MatteboxImageIO
import MatteboxPipeline
import MatteboxTestSupport
import Testing

/// The face the mattes are built around, found by CenterFace (installed by
/// `mattebox models install centerface`; CI runs `make models`) through the
/// real plugins: tilted heads the Haar cascade misses get their mattes, and
/// a baboon the cascade takes for a face does not.
@Suite(.enabled(if: BuiltVisionPlugins.centerfaceInstalled, "CenterFace is not installed (mattebox models install centerface)"))
struct FaceFinderTests {
    /// FASSEG faces 1, 2, 3 and 5 turned 30° by libvips (`vips rotate`)
    /// (labels with nearest-neighbour sampling, new corners background):
    /// the cascade found none of these four when this was written.
    static func tiltedFaces() throws -> URL {
        try FassegVariants.make("tilted", faces: [1, 2, 3, 5], steps: [
            { _, isLabel, input, output in
                ["rotate", input, output, "30"] + (isLabel ? ["--interpolate", "nearest", "--background", "255 0 0"] : ["--background", "128 128 128"])
            },
        ])
    }

    @Test(.enabled(if: BuiltVisionPlugins.eval != nil, Comment(rawValue: BuiltVisionPlugins.noEval)))
    func tiltedHeadsAreFoundAndMatted() throws {
        let folder = try Self.tiltedFaces()
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let neural = try FaceEvaluation(registry: BuiltPlugins.registry, faces: "centerface").fasseg(directory: folder)
        #expect(neural.count == 4 && neural.allSatisfy(\.faceFound), "\(neural.map(\.faceFound))")
        #expect(neural.allSatisfy { $0.method.contains(", CenterFace") }, "\(neural.map(\.method))")
        func mean(_ values: [Double]) -> Double { values.reduce(0, +) / Double(values.count) }
        // Measured: skin F1 0.91, hair F1 0.85, head IoU 0.92 on these four.
        #expect(mean(neural.map(\.skinF1)) >= 0.85, "\(neural.map(\.skinF1))")
        #expect(mean(neural.map(\.hairF1)) >= 0.75, "\(neural.map(\.hairF1))")
        #expect(mean(neural.map(\.headIoU)) >= 0.85, "\(neural.map(\.headIoU))")
        let cascade = try FaceEvaluation(registry: BuiltPlugins.registry, faces: "haar").fasseg(directory: folder)
        #expect(cascade.filter(\.faceFound).count <= 1, "the cascade was not expected to find these: \(cascade.map(\.faceFound))")
    }

    func mattes(_ name: String, faces: String) throws -> Photo {
        var photo = try ImageDecoder.decodePhoto(at: BuiltVisionPlugins.chessboards.appendingPathComponent(name))
        _ = try BuiltPlugins.runner("""
            stages:
              - plugin: org.mattebox.portrait-matte
                params: { faces: \(faces) }
              - plugin: org.mattebox.semantic-mattes
                params: { faces: \(faces), mattes: "hair,skin" }
            """).run(&photo)
        return photo
    }

    @Test(.enabled(if: BuiltVisionPlugins.hasChessboards, "opencv-doc's photos are missing"))
    func aBaboonIsNotAFace() throws {
        let photo = try mattes("baboon.jpg", faces: "auto")
        #expect(photo.auxiliary[.portraitMatte] == nil && photo.auxiliary[.skinMatte] == nil)
        #expect(photo.metadata.notes["portraitMatte"]?.contains("no face found") == true, "\(photo.metadata.notes)")
    }

    @Test(.enabled(if: BuiltVisionPlugins.hasChessboards, "opencv-doc's photos are missing"))
    func messisSmallFaceIsTheOneMatted() throws {
        let photo = try mattes("messi5.jpg", faces: "centerface")
        #expect(photo.metadata.notes["portraitMatteMethod"]?.hasSuffix("face found by CenterFace (cv::dnn)") == true, "\(photo.metadata.notes)")
        let skin = try #require(photo.auxiliary[.skinMatte])
        let scale = Double(skin.width) / Double(photo.primary.width)
        // Messi's cheek, marked by hand on the 548x342 photo. With the cascade's
        // box (74 px, off the face) it got no skin, and no hair was found.
        #expect(skin.sample(x: Int(243 * scale), y: Int(118 * scale)) >= 128)
    }

    @Test func theLicenceIsKeptBesideTheModel() throws {
        let folder = try #require(BuiltVisionPlugins.centerfaceFolder)
        let licence = try String(contentsOf: folder.appendingPathComponent("LICENSE"), encoding: .utf8)
        #expect(licence.hasPrefix("MIT License"))
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("manifest.json"))) as? [String: Any] ?? [:]
        // The recorded hash is the file's, as coreutils computes it (not a value copied from the catalogue).
        let computed = TestEnvironment.run(["/usr/bin/sha256sum", folder.appendingPathComponent("centerface-320.onnx").path]).output.prefix(64)
        #expect(computed.count == 64 && manifest["fileSHA256"] as? String == String(computed), "\(manifest["fileSHA256"] ?? "none") vs \(computed)")
        let installed = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(installed == ["LICENSE", "centerface-320.onnx", "manifest.json"], "the wheel is not kept: \(installed)")
    }
}
