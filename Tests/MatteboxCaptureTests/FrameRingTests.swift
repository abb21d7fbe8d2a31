import CV4L2
import Testing

@testable import MatteboxCapture

/// The zero-shutter-lag ring and the frames a press holds from it: a press
/// that waits behind earlier ones on a loaded machine must still find the
/// frame exposed at its press after the ring (six frames, 200 ms at 30 fps)
/// has dropped it.
@Suite struct FrameRingTests {
    static let format: StreamFormat = {
        var raw = v4l2_format()
        raw.fmt.pix.pixelformat = FourCC.yuyv.rawValue
        (raw.fmt.pix.width, raw.fmt.pix.height, raw.fmt.pix.bytesperline, raw.fmt.pix.sizeimage) = (4, 2, 8, 16)
        return StreamFormat(raw)
    }()

    /// Frame `sequence` began exposing at `sequence` × 33 ms.
    static func frame(_ sequence: UInt32) -> CapturedFrame {
        CapturedFrame(bytes: [UInt8](repeating: UInt8(sequence), count: 16), format: format, sequence: sequence, timestamp: UInt64(sequence) * 33_000_000)
    }

    @Test func framesHeldAtAPressAreFoundAfterTheRingDroppedThem() {
        let ring = FrameRing(capacity: 3)
        for sequence in UInt32(1)...4 { ring.append(Self.frame(sequence)) }
        let press = Self.frame(4).timestamp + 10_000_000
        // What a press holds before it waits: the ring's frames up to the press.
        let held = Array(ring.frames(atOrBefore: press).suffix(3))
        #expect(held.map(\.sequence) == [2, 3, 4])
        // Meanwhile the stream goes on and the ring keeps only its newest three.
        for sequence in UInt32(5)...9 { ring.append(Self.frame(sequence)) }
        #expect(ring.latest(atOrBefore: press) == nil, "the ring alone has lost the frame at the press")
        #expect(ring.latest(atOrBefore: press, with: held)?.sequence == 4, "the held frame at the press")
        // The frame before it too, for choosing the sharper of the two; each frame once, oldest first.
        #expect(ring.frames(within: 2 * 33_000_000, before: press, with: held).map(\.sequence) == [3, 4])
    }

    @Test func aHeldFrameTheRingStillHasIsCountedOnce() {
        let ring = FrameRing(capacity: 6)
        for sequence in UInt32(1)...3 { ring.append(Self.frame(sequence)) }
        let held = ring.frames(atOrBefore: .max)
        ring.append(Self.frame(4))
        #expect(ring.frames(atOrBefore: .max, with: held).map(\.sequence) == [1, 2, 3, 4])
        #expect(ring.latest(atOrBefore: Self.frame(2).timestamp, with: held)?.sequence == 2)
    }
}
