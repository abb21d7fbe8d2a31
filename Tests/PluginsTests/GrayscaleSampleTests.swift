import Foundation
import MatteboxCore
import MatteboxTestSupport
import Testing

/// The Swift sample plugin third parties copy: its pixels are Rec. 709 luma
/// (ITU-R BT.709: Y = 0.2126 R + 0.7152 G + 0.0722 B) at strength 1, the photo
/// untouched at 0, and half way between at 0.5, on every pixel of a pattern.
@Suite struct GrayscaleSampleTests {
    func run(strength: Double) throws -> (before: PixelImage, after: PixelImage) {
        var photo = Photo(primary: TestImages.pattern(width: 48, height: 32))
        let before = photo.primary.copy()
        _ = try BuiltPlugins.runner(
            "stages:\n  - plugin: org.mattebox.samples.grayscale\n    params: { strength: \(strength) }").run(&photo)
        return (before, photo.primary)
    }

    @Test(arguments: [0.0, 0.5, 1.0])
    func pixelsAreBT709LumaBlendedByStrength(strength: Double) throws {
        let (before, after) = try run(strength: strength)
        var worst = 0.0
        for y in 0..<before.height {
            for x in 0..<before.width {
                let (r, g, b) = (before.sample(x: x, y: y, channel: 0), before.sample(x: x, y: y, channel: 1), before.sample(x: x, y: y, channel: 2))
                let luma = 0.2126 * r + 0.7152 * g + 0.0722 * b
                for (channel, value) in [r, g, b].enumerated() {
                    worst = max(worst, abs(after.sample(x: x, y: y, channel: channel) - ((1 - strength) * value + strength * luma)))
                }
            }
        }
        #expect(worst <= 0.5, "strength \(strength): a pixel is \(worst) away from BT.709")
        if strength == 0 { #expect(after.hasSamePixels(as: before)) }
        if strength == 1 { #expect(!after.hasSamePixels(as: before), "the pattern has colour, so grey differs") }
    }
}
