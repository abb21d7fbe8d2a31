import Foundation
import MatteboxCore
import MatteboxRuntime
import MatteboxTestSupport
import MatteboxVision
import Testing

/// The vision module on its own: stereo matching through OpenCV on a pair
/// whose answer is known (a random texture shifted by a fixed disparity), the
/// quality metrics on masks worked out by hand, and the PFM round trip.
@Suite struct StereoAndMetricsTests {
    /// A grey random texture and the same texture seen `shift` pixels further
    /// left in the right view, as a fronto-parallel wall at one distance.
    static func shiftedPair(width: Int = 160, height: Int = 120, shift: Int = 8) -> (PixelImage, PixelImage) {
        var generator = SeededGenerator("stereo texture")
        let texture = (0..<(width + shift) * height).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let left = PixelImage(width: width, height: height, channels: 3, format: .uint8)
        let right = PixelImage(width: width, height: height, channels: 3, format: .uint8)
        let l = left.data.assumingMemoryBound(to: UInt8.self), r = right.data.assumingMemoryBound(to: UInt8.self)
        for y in 0..<height {
            for x in 0..<width {
                let row = y * (width + shift)
                for c in 0..<3 {
                    l[(y * width + x) * 3 + c] = texture[row + x]
                    r[(y * width + x) * 3 + c] = texture[row + x + shift]
                }
            }
        }
        return (left, right)
    }

    @Test func stereoFindsAConstantShift() throws {
        let (left, right) = Self.shiftedPair()
        let result = try StereoMatcher(numDisparities: 32).disparity(left: left, right: right)
        #expect(result.disparity.width == left.width && result.disparity.format == .float32)
        // Away from the left border (where the right view has no match), disparity is the shift.
        var close = 0, counted = 0
        for y in 10..<(left.height - 10) {
            for x in 40..<(left.width - 10) {
                counted += 1
                if abs(result.disparity.sample(x: x, y: y) - 8) <= 1 { close += 1 }
            }
        }
        #expect(Double(close) / Double(counted) > 0.95, "\(close) of \(counted) within 1 px")
    }

    @Test func metricsOnMasksWorkedOutByHand() {
        let truth: QualityMetrics.Mask = [true, true, false, false]
        let predicted: QualityMetrics.Mask = [true, false, true, false]
        #expect(QualityMetrics.iou(predicted, truth) == 1.0 / 3.0)
        #expect(QualityMetrics.f1(predicted, truth) == 0.5)
        #expect(QualityMetrics.iou(truth, truth) == 1)
    }

    @Test func pfmRoundTripsAndRejectsAWrongSize() throws {
        let image = PixelImage(width: 3, height: 2, channels: 1, format: .float32)
        for i in 0..<6 { image.data.storeBytes(of: Float(i) * 1.5, toByteOffset: i * 4, as: Float.self) }
        let read = try DisparityFile.readPFM(DisparityFile.pfm(image), name: "test.pfm")
        #expect(read.hasSamePixels(as: image))
        var truncated = DisparityFile.pfm(image)
        truncated.removeLast(4)
        #expect(throws: MatteboxError.self) { try DisparityFile.readPFM(truncated, name: "short.pfm") }
    }
}
