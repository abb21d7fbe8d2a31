import MatteboxCore
import Testing

/// Channel and sample-format conversion that writers and views share.
@Suite struct PixelConversionTests {
    @Test func greyIsSpreadAndSixteenBitKeepsItsHighByte() {
        let grey = PixelImage(width: 2, height: 1, channels: 1, format: .uint16)
        grey.data.storeBytes(of: UInt16(0xAB12), toByteOffset: 0, as: UInt16.self)
        grey.data.storeBytes(of: UInt16(0x0001), toByteOffset: 2, as: UInt16.self)
        let rgb = grey.converted(channels: 3, eightBit: true)
        #expect(rgb.channels == 3 && rgb.format == .uint8)
        #expect((0..<3).map { rgb.sample(x: 0, y: 0, channel: $0) } == [0xAB, 0xAB, 0xAB])
        #expect(rgb.sample(x: 1, y: 0, channel: 2) == 0)
        let wide = grey.converted(channels: 3, eightBit: false)
        #expect(wide.format == .uint16 && wide.sample(x: 0, y: 0, channel: 1) == Double(0xAB12))
    }

    @Test func alphaIsDroppedAndFloatIsClamped() {
        let rgba = PixelImage(width: 1, height: 1, channels: 4, format: .float32)
        for (c, value) in [Float(-1), 0.5, 2, 0.25].enumerated() {
            rgba.data.storeBytes(of: value, toByteOffset: c * 4, as: Float.self)
        }
        let rgb = rgba.converted(channels: 3, eightBit: true)
        #expect((0..<3).map { rgb.sample(x: 0, y: 0, channel: $0) } == [0, 128, 255])
        let same = PixelImage(width: 1, height: 1, channels: 3, format: .uint8)
        #expect(same.converted(channels: 3, eightBit: true) === same)
    }
}
