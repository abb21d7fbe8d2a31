import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxTestSupport
import Testing

/// The ONNX model option of the matte plugins, run through the real plugin
/// host and cv::dnn with tiny models the tests write (1x1 convolutions whose
/// answer can be worked out from the pixels), on opencv-doc's messi5.jpg,
/// whose one face lets the plugins past their "no face, no matte" gate.
@Suite(.enabled(if: BuiltVisionPlugins.hasChessboards, "opencv-doc's sample photos are not installed"))
struct SegmentationModelTests {
    static let photo = BuiltVisionPlugins.chessboards.appendingPathComponent("messi5.jpg")

    /// Writes a model into a fresh folder and returns its path.
    func write(_ model: Data) throws -> String {
        let url = try TestEnvironment.scratchDirectory("onnx").appendingPathComponent("tiny.onnx")
        try model.write(to: url)
        return url.path
    }

    func run(_ stage: String) throws -> Photo {
        var photo = try ImageDecoder.decodePhoto(at: SegmentationModelTests.photo)
        _ = try BuiltPlugins.runner("stages:\n  - plugin: \(stage)").run(&photo)
        return photo
    }

    /// Share of pixels where the matte (≥ 128) agrees with `expected`, a rule on the primary's RGB.
    func agreement(_ matte: PixelImage, _ primary: PixelImage, _ expected: (Double, Double, Double) -> Bool) -> Double {
        #expect(matte.width == primary.width && matte.height == primary.height)
        var same = 0
        for y in 0..<primary.height {
            for x in 0..<primary.width {
                let rgb = (0..<3).map { primary.sample(x: x, y: y, channel: $0) / 255 }
                if (matte.sample(x: x, y: y) >= 128) == expected(rgb[0], rgb[1], rgb[2]) { same += 1 }
            }
        }
        return Double(same) / Double(primary.width * primary.height)
    }

    /// Two classes: 0 scores nothing, 1 scores 40 (R − G). Softmax makes hair where red beats green.
    func redOverGreen() throws -> String {
        try write(TinyONNXModel.convolution(weights: [[0, 0, 0], [40, -40, 0]], biases: [0, 0]))
    }

    @Test func aFaceParserModelMakesTheSemanticMattesFromItsClasses() throws {
        let model = try redOverGreen()
        let common = "org.mattebox.semantic-mattes\n    params: { scale: 1, mattes: 'hair,skin', model: '\(model)', model-input: 512x320, model-crop: 0, model-mean: '0,0,0', model-std: '1,1,1'"
        let photo = try run(common + ", model-classes: 'hair=1;skin=0' }")
        let hair = try #require(photo.auxiliary[.hairMatte]), skin = try #require(photo.auxiliary[.skinMatte])
        // Each pixel's class decided by the model (red over green), its edges then softened along the
        // photo's own, which this pixel-by-pixel model draws everywhere: a few percent move.
        #expect(agreement(hair, photo.primary) { r, g, _ in r > g } > 0.95)
        // Class scores are not an alpha: each pixel belongs to the class that wins it, never to both.
        var oneOfThem = 0
        for y in 0..<hair.height {
            for x in 0..<hair.width where (hair.sample(x: x, y: y) >= 128) != (skin.sample(x: x, y: y) >= 128) { oneOfThem += 1 }
        }
        #expect(Double(oneOfThem) / Double(hair.width * hair.height) > 0.95)
        // The same model fed B, G, R planes sees blue where it expects red.
        let swapped = try run(common + ", model-bgr: true, model-classes: 'hair=1;skin=0' }")
        #expect(agreement(try #require(swapped.auxiliary[.hairMatte]), swapped.primary) { _, g, b in b > g } > 0.95)
    }

    @Test func aFaceCropKeepsTheMatteAroundTheFace() throws {
        let model = try redOverGreen()
        let photo = try run(
            "org.mattebox.semantic-mattes\n    params: { scale: 1, mattes: hair, model: '\(model)', model-input: 128x128, model-crop: 2.5, model-mean: '0,0,0', model-std: '1,1,1', model-classes: 'hair=1' }")
        let hair = try #require(photo.auxiliary[.hairMatte])
        // messi5's face is near (240, 90); the red shirt far below it and the corners stay out.
        var outside = 0
        for (x, y) in [(5, 5), (540, 5), (5, 335), (540, 335), (260, 300)] where hair.sample(x: x, y: y) > 0 { outside += 1 }
        #expect(outside == 0)
        var inside = 0
        for y in 0..<hair.height { for x in 0..<hair.width where hair.sample(x: x, y: y) >= 128 { inside += 1 } }
        #expect(inside > 500, "some red-over-green pixels around the face")
    }

    @Test func aOneChannelMattingModelMakesThePortraitMatte() throws {
        // alpha = sigmoid(20 B − 10): the person is wherever blue is above one half.
        let model = try write(TinyONNXModel.convolution(weights: [[0, 0, 20]], biases: [-10], sigmoid: true))
        let photo = try run(
            "org.mattebox.portrait-matte\n    params: { scale: 1, model: '\(model)', model-input: 512x320, model-mean: '0,0,0', model-std: '1,1,1', model-classes: 'person=0' }")
        let matte = try #require(photo.auxiliary[.portraitMatte])
        #expect(agreement(matte, photo.primary) { _, _, b in b > 0.5 } > 0.97)
        // Soft where blue is near one half, as the sigmoid says.
        let values = Set((0..<matte.height).flatMap { y in (0..<matte.width).map { Int(matte.sample(x: $0, y: y)) } })
        #expect(values.filter { (20...235).contains($0) }.count > 50)
    }

    @Test func badModelsFailWithTheFileNamed() throws {
        // Not there: refused when the pipeline is built.
        #expect {
            try BuiltPlugins.runner("stages:\n  - plugin: org.mattebox.portrait-matte\n    params: { model: /nonexistent/person.onnx }")
        } throws: { "\($0)".contains("/nonexistent/person.onnx") }
        // Not ONNX: this photo fails, naming the file.
        let garbage = try write(Data("this is not a protobuf".utf8))
        var photo = try ImageDecoder.decodePhoto(at: SegmentationModelTests.photo)
        #expect {
            _ = try BuiltPlugins.runner("stages:\n  - plugin: org.mattebox.portrait-matte\n    params: { model: '\(garbage)' }").run(&photo)
        } throws: { "\($0)".contains(garbage) && "\($0)".contains("cannot load the model") }
        #expect(photo.auxiliary[.portraitMatte] == nil)
        // A class the model does not have.
        let model = try redOverGreen()
        #expect {
            _ = try run("org.mattebox.semantic-mattes\n    params: { mattes: hair, model: '\(model)', model-input: 64x64, model-classes: 'hair=5' }")
        } throws: { "\($0)".contains("class 5") && "\($0)".contains("gives 2") }
        // A matte with no class.
        #expect {
            try BuiltPlugins.runner("stages:\n  - plugin: org.mattebox.semantic-mattes\n    params: { model: '\(model)', model-classes: 'hair=1' }")
        } throws: { "\($0)".contains("skin") }
    }
}
