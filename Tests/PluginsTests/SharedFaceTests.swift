import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxImageOps
import MatteboxTestSupport
import Testing

/// The portrait matte leaves the face it found on the photo (`shared.vision.face`)
/// and the semantic mattes take it instead of finding it again (issue 45), but
/// only when it was found the same way on the same pixels: a stage in between
/// that changed the primary makes them look again. Real built plugins on
/// opencv-doc's messi5.jpg, the Haar cascade finding the face (no model needed).
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"),
                "opencv-doc is not installed (make deps)"))
struct SharedFaceTests {
    let selfie = URL(fileURLWithPath: "/usr/share/doc/opencv-doc/examples/data/messi5.jpg")
    let params = "{ faces: haar, model: none }"
    let semanticParams = "{ faces: haar, model: none, landmarks: none, pose: none, mattes: 'hair,skin' }"

    func photo() throws -> Photo { try ImageContainers.reader(for: selfie).readPhoto(at: selfie) }

    func run(_ stages: [String], on photo: inout Photo) throws {
        let yaml = "stages:\n" + stages.map { "  - plugin: org.mattebox.\($0)\n" }.joined()
        _ = try BuiltPlugins.runner(yaml).run(&photo)
    }

    var portrait: String { "portrait-matte\n    params: \(params)" }
    var semantic: String { "semantic-mattes\n    params: \(semanticParams)" }

    func mattes(_ photo: Photo) -> [PixelImage?] { [photo.auxiliary[.hairMatte], photo.auxiliary[.skinMatte]] }

    func same(_ a: [PixelImage?], _ b: [PixelImage?]) -> Bool {
        zip(a, b).allSatisfy { x, y in
            guard let x, let y else { return x == nil && y == nil }
            return x.hasSamePixels(as: y)
        }
    }

    /// The shared value with its face moved by a quarter of the photo's width: a face the photo does not show there.
    func movedFace(_ text: String, by dx: Int32) throws -> String {
        var value = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        var rectangles = try #require(value["rectangles"] as? [Int])
        rectangles[0] += Int(dx)
        value["rectangles"] = rectangles
        return String(decoding: try JSONSerialization.data(withJSONObject: value), as: UTF8.self)
    }

    @Test func theSemanticMattesTakeTheFaceThePortraitMatteFound() throws {
        // The semantic mattes after the portrait matte, finding the face themselves.
        var alone = try photo()
        try run([portrait], on: &alone)
        alone.metadata.shared = [:]
        try run([semantic], on: &alone)
        #expect(alone.auxiliary[.skinMatte] != nil, "messi5's face was not found")

        var both = try photo()
        try run([portrait], on: &both)
        let shared = try #require(both.metadata.shared["vision.face"], "the portrait matte left no face")
        #expect(shared.contains("\"rectangles\""))
        try run([semantic], on: &both)
        #expect(same(mattes(both), mattes(alone)), "the shared face made other mattes than finding it")

        // A face left on the photo for these very pixels is taken as it is, not found again.
        var planted = try photo()
        try run([portrait], on: &planted)
        planted.metadata.shared["vision.face"] = try movedFace(shared, by: Int32(planted.primary.width / 4))
        try run([semantic], on: &planted)
        #expect(!same(mattes(planted), mattes(alone)), "the semantic mattes found the face again instead of taking it")
    }

    @Test func aFaceLeftForOtherPixelsIsFoundAgain() throws {
        var first = try photo()
        try run([portrait], on: &first)
        let shared = try #require(first.metadata.shared["vision.face"])

        // A stage in between turned the photo: the value is for the pixels before.
        var turned = try photo()
        turned.primary = try ImageGeometry.apply(.flipHorizontal, to: turned.primary)
        var reference = turned
        try run([semantic], on: &reference)
        turned.metadata.shared["vision.face"] = try movedFace(shared, by: Int32(turned.primary.width / 4))
        try run([semantic], on: &turned)
        #expect(same(mattes(turned), mattes(reference)), "a face found on other pixels was used")

        // Found another way (another effort): found again too.
        var other = try photo()
        other.metadata.shared["vision.face"] = try movedFace(shared, by: Int32(other.primary.width / 4))
        var expected = try photo()
        try run(["semantic-mattes\n    params: { faces: haar, model: none, landmarks: none, pose: none, mattes: 'hair,skin', effort: quality }"], on: &expected)
        try run(["semantic-mattes\n    params: { faces: haar, model: none, landmarks: none, pose: none, mattes: 'hair,skin', effort: quality }"], on: &other)
        #expect(same(mattes(other), mattes(expected)), "a face found with another effort was used")
    }
}
