import MatteboxCore

/// The measures in ../shared/eval/README.md, so the evaluation command and
/// the tests score depth and mattes the same way.
package enum QualityMetrics {
    /// A mask: one Bool per pixel, row-major.
    package typealias Mask = [Bool]

    /// Matte pixels at or above half (128 of 255) as a mask.
    package static func threshold(_ matte: PixelImage) -> Mask {
        (0..<(matte.width * matte.height)).map { matte.sample(x: $0 % matte.width, y: $0 / matte.width) >= 128 }
    }

    package static func iou(_ predicted: Mask, _ truth: Mask) -> Double {
        var both = 0, either = 0
        for i in predicted.indices {
            if predicted[i] && truth[i] { both += 1 }
            if predicted[i] || truth[i] { either += 1 }
        }
        return either == 0 ? 1 : Double(both) / Double(either)
    }

    package static func f1(_ predicted: Mask, _ truth: Mask) -> Double {
        var both = 0, sizes = 0
        for i in predicted.indices {
            if predicted[i] && truth[i] { both += 1 }
            sizes += (predicted[i] ? 1 : 0) + (truth[i] ? 1 : 0)
        }
        return sizes == 0 ? 1 : 2 * Double(both) / Double(sizes)
    }

    /// IoU within `band` pixels of the true boundary (where matting matters).
    package static func boundaryIoU(_ predicted: Mask, _ truth: Mask, width: Int, height: Int, band: Int = 3) -> Double {
        var near = Mask(repeating: false, count: truth.count)
        for y in 0..<height {
            for x in 0..<width where x + 1 < width && truth[y * width + x] != truth[y * width + x + 1]
                || y + 1 < height && truth[y * width + x] != truth[(y + 1) * width + x]
            {
                for yy in max(0, y - band)...min(height - 1, y + band) {
                    for xx in max(0, x - band)...min(width - 1, x + band) { near[yy * width + xx] = true }
                }
            }
        }
        return iou(zip(predicted, near).map { $0 && $1 }, zip(truth, near).map { $0 && $1 })
    }

    /// Share of pixels (0...1) within `band` of the matte's own edge whose values are soft (neither 0 nor 255).
    package static func softEdgeShare(_ matte: PixelImage, band: Int = 2) -> Double {
        let hard = threshold(matte)
        var soft = 0, total = 0
        for y in 0..<matte.height {
            for x in 0..<matte.width where x + 1 < matte.width && hard[y * matte.width + x] != hard[y * matte.width + x + 1] {
                for xx in max(0, x - band)...min(matte.width - 1, x + band) {
                    let v = matte.sample(x: xx, y: y)
                    total += 1
                    if v > 0 && v < 255 { soft += 1 }
                }
            }
        }
        return total == 0 ? 0 : Double(soft) / Double(total)
    }

    /// Stereo errors over the pixels of `mask` whose truth is known (truth > 0).
    package struct StereoScore: Sendable, Codable {
        package var bad1: Double // percent
        package var bad2: Double // percent
        package var averageError: Double // pixels
    }

    package static func stereo(estimate: PixelImage, truth: [Float], mask: Mask) -> StereoScore {
        var counted = 0, bad1 = 0, bad2 = 0
        var errorSum = 0.0
        for i in truth.indices where mask[i] && truth[i] > 0 {
            let error = abs(Double(estimate.data.load(fromByteOffset: i * 4, as: Float.self)) - Double(truth[i]))
            counted += 1
            errorSum += error
            if error > 1 { bad1 += 1 }
            if error > 2 { bad2 += 1 }
        }
        let n = Double(max(counted, 1))
        return StereoScore(bad1: 100 * Double(bad1) / n, bad2: 100 * Double(bad2) / n, averageError: errorSum / n)
    }
}
