import Foundation
import MatteboxCore

/// How sharp a frame is: the variance of a Laplacian over its luma, sampled
/// on a coarse grid (enough to rank a few neighbouring frames for `balanced`).
enum Sharpness {
    static func score(_ image: PixelImage) -> Double {
        let step = max(1, min(image.width, image.height) / 240)
        let pixels = image.data.assumingMemoryBound(to: UInt8.self)
        func luma(_ x: Int, _ y: Int) -> Double {
            let offset = (y * image.width + x) * image.channels
            return image.channels >= 3
                ? 0.299 * Double(pixels[offset]) + 0.587 * Double(pixels[offset + 1]) + 0.114 * Double(pixels[offset + 2])
                : Double(pixels[offset])
        }
        var sum = 0.0, squares = 0.0, count = 0.0
        for y in stride(from: step, to: image.height - step, by: step) {
            for x in stride(from: step, to: image.width - step, by: step) {
                let laplacian = luma(x - step, y) + luma(x + step, y) + luma(x, y - step) + luma(x, y + step) - 4 * luma(x, y)
                sum += laplacian
                squares += laplacian * laplacian
                count += 1
            }
        }
        guard count > 0 else { return 0 }
        let mean = sum / count
        return squares / count - mean * mean
    }
}
