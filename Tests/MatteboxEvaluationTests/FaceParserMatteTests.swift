import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxTestSupport
import Testing

/// The semantic mattes from the face parser (`mattebox models install faceparser`, CI's `make
/// models`), run through cv::dnn by the real plugin on FASSEG's real faces: hair, skin and a
/// glasses matte only where glasses are. No face here wears glasses, so a pair is drawn on one
/// (dark frames where glasses sit): the matte must appear there and nowhere else.
@Suite(.enabled(if: BuiltVisionPlugins.faceparserInstalled && BuiltVisionPlugins.eval != nil,
                "the face parser is not installed (mattebox models install faceparser) or ../shared/eval is missing"))
struct FaceParserMatteTests {
    static let pipeline = "stages:\n  - plugin: org.mattebox.semantic-mattes\n    params: { model: faceparser, mattes: \"hair,skin,glasses\" }"

    static func face(_ number: Int) -> URL {
        BuiltVisionPlugins.eval!.appendingPathComponent("faceparsing/fasseg_frontal02/rgb/\(number).bmp")
    }

    static func mattes(_ url: URL) throws -> Photo {
        var photo = try ImageDecoder.decodePhoto(at: url)
        _ = try BuiltPlugins.runner(pipeline).run(&photo)
        return photo
    }

    @Test func facesWithoutGlassesGetHairAndSkinAndNoGlassesMatte() throws {
        for number in [1, 3, 10] {
            let photo = try Self.mattes(Self.face(number))
            #expect(photo.auxiliary[.hairMatte] != nil && photo.auxiliary[.skinMatte] != nil, "face \(number): \(photo.metadata.notes)")
            #expect(photo.auxiliary[.glassesMatte] == nil, "face \(number) wears no glasses")
            #expect(photo.metadata.notes["semanticMattes"]?.contains("no glasses found") == true, "\(photo.metadata.notes)")
        }
    }

    @Test func drawnGlassesGetAGlassesMatteWhereTheyAre() throws {
        var photo = try ImageDecoder.decodePhoto(at: Self.face(3))
        let image = photo.primary.copy()
        try #require(image.format == .uint8 && image.channels == 3)
        let (width, height) = (image.width, image.height)
        let bytes = image.data.assumingMemoryBound(to: UInt8.self)
        // Two rings and a bridge, 1/60 of the width thick, over the eyes of this aligned face.
        let eyeRow = Double(height) * 0.495, radius = Double(width) * 0.11, thickness = max(3.0, Double(width) / 60)
        let centres = [Double(width) * 0.33, Double(width) * 0.66]
        func onFrame(_ x: Double, _ y: Double) -> Bool {
            for cx in centres {
                let d = ((x - cx) / radius) * ((x - cx) / radius) + ((y - eyeRow) / (radius * 0.75)) * ((y - eyeRow) / (radius * 0.75))
                if abs(d.squareRoot() - 1) * radius < thickness / 2 { return true }
            }
            return x > centres[0] + radius && x < centres[1] - radius && abs(y - eyeRow) < thickness / 2
        }
        for y in 0..<height {
            for x in 0..<width where onFrame(Double(x), Double(y)) {
                for c in 0..<3 { bytes[(y * width + x) * 3 + c] = 25 }
            }
        }
        photo.primary = image
        _ = try BuiltPlugins.runner(Self.pipeline).run(&photo)
        let glasses = try #require(photo.auxiliary[.glassesMatte], "no glasses matte: \(photo.metadata.notes)")
        let scale = Double(glasses.width) / Double(width)
        #expect(glasses.sample(x: Int(centres[0] * scale), y: Int((eyeRow - radius * 0.75) * scale)) >= 128, "the left rim's top")
        #expect(glasses.sample(x: Int(Double(width) * 0.5 * scale), y: Int(Double(height) * 0.9 * scale)) < 128, "the chin")
        #expect(glasses.sample(x: Int(Double(width) * 0.5 * scale), y: Int(Double(height) * 0.05 * scale)) < 128, "the hair")
    }

    /// A real phone photo of a man wearing round glasses (`../shared/depth-samples`): a glasses matte,
    /// all of it about his face (the region 1350,150 800x800 of the photo, marked by hand).
    @Test func aRealPairOfGlassesGetsAGlassesMatteOnTheFace() throws {
        let url = try #require(TestEnvironment.shared?.appendingPathComponent("depth-samples/shu223__iOS-Depth-Sampler__image-with-matte.jpg"))
        var photo = try ImageDecoder.decodePhoto(at: url)
        _ = try BuiltPlugins.runner(
            "stages:\n  - plugin: org.mattebox.semantic-mattes\n    params: { model: faceparser, mattes: glasses, existing: replace }"
        ).run(&photo)
        let glasses = try #require(photo.auxiliary[.glassesMatte], "no glasses matte: \(photo.metadata.notes)")
        let scale = Double(glasses.width) / Double(photo.primary.width)
        var inside = 0, outside = 0
        for y in 0..<glasses.height {
            for x in 0..<glasses.width where glasses.sample(x: x, y: y) >= 128 {
                let (px, py) = (Double(x) / scale, Double(y) / scale)
                if px >= 1350 && px < 2150 && py >= 150 && py < 950 { inside += 1 } else { outside += 1 }
            }
        }
        #expect(inside > 0 && outside * 20 <= inside, "glasses pixels about the face \(inside), elsewhere \(outside)")
    }
}
