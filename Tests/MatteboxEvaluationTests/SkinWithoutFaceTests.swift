import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxTestSupport
import Testing

/// iOS makes a skin matte without a face: an iPhone 16 Pro photo of feet in
/// sandals under a desk holds Apple's own portrait and skin mattes and no
/// face. Given that person matte, the semantic mattes plugin finds skin there
/// too (a skin prior, then the person's own colour), where Apple's is.
@Suite(.enabled(if: TestEnvironment.shared != nil, "../shared/heic-samples is not beside this clone"))
struct SkinWithoutFaceTests {
    @Test func feetWithoutAFaceGetASkinMatteWhereApplesIs() throws {
        let desk = try #require(TestEnvironment.shared).appendingPathComponent("heic-samples/openize__iphone_iOS18_tmap+MatteMaps.heic")
        var photo = try ImageDecoder.decodePhoto(at: desk)
        let apple = try #require(photo.auxiliary[.skinMatte], "the sample holds Apple's skin matte")
        _ = try BuiltPlugins.runner(
            "stages:\n  - plugin: org.mattebox.semantic-mattes\n    params: { mattes: 'skin,hair', existing: replace }").run(&photo)
        let ours = try #require(photo.auxiliary[.skinMatte], "\(photo.metadata.notes)")
        #expect(photo.metadata.notes["semanticMattes"]?.contains("no face found, so no hair matte") == true, "\(photo.metadata.notes)")
        // Both mattes in stored orientation, at different sizes: compared on a grid of the photo.
        var both = 0, appleOnly = 0, oursOnly = 0
        for row in 0..<400 {
            for column in 0..<300 {
                let (u, v) = ((Double(column) + 0.5) / 300, (Double(row) + 0.5) / 400)
                let a = apple.sample(x: Int(u * Double(apple.width)), y: Int(v * Double(apple.height))) >= 128
                let o = ours.sample(x: Int(u * Double(ours.width)), y: Int(v * Double(ours.height))) >= 128
                if a && o { both += 1 } else if a { appleOnly += 1 } else if o { oursOnly += 1 }
            }
        }
        let f1 = 2.0 * Double(both) / Double(2 * both + appleOnly + oursOnly)
        // Measured 0.50: the foot Apple marks is found (most of it); the beige sandal beside it is taken too.
        #expect(f1 >= 0.4, "F1 against Apple's skin matte \(f1) (both \(both), Apple's only \(appleOnly), ours only \(oursOnly))")
    }

    @Test func withoutAPersonMatteThereIsNoSkinMatteAndTheNoteSaysWhy() throws {
        var photo = try ImageDecoder.decodePhoto(at: TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-1.jpg"))
        _ = try BuiltPlugins.runner("stages:\n  - plugin: org.mattebox.semantic-mattes\n    params: { mattes: 'skin,hair' }").run(&photo)
        #expect(photo.auxiliary[.skinMatte] == nil)
        #expect(photo.metadata.notes["semanticMattes"]?.contains("no face found, so no hair or skin mattes") == true, "\(photo.metadata.notes)")
    }
}
