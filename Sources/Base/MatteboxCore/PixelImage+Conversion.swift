extension PixelImage {
    /// The same picture with `channels` channels, so a writer or a view gets
    /// the layout it needs: grey is spread to every channel, extra channels
    /// (alpha) are dropped. With `eightBit`, 16-bit keeps its high byte and
    /// float is clamped to 0...1; otherwise the sample format is kept.
    package func converted(channels target: Int, eightBit: Bool) -> PixelImage {
        let format: SampleFormat = eightBit ? .uint8 : self.format
        if target == channels, format == self.format { return self }
        let result = PixelImage(width: width, height: height, channels: target, format: format)
        let pixels = width * height
        func source(_ c: Int) -> Int { channels >= target ? c : min(c, channels - 1) }
        switch (self.format, format) {
        case (.uint8, .uint8):
            let input = data.assumingMemoryBound(to: UInt8.self), output = result.data.assumingMemoryBound(to: UInt8.self)
            for i in 0..<pixels { for c in 0..<target { output[i * target + c] = input[i * channels + source(c)] } }
        case (.uint16, .uint8):
            let input = data.assumingMemoryBound(to: UInt16.self), output = result.data.assumingMemoryBound(to: UInt8.self)
            for i in 0..<pixels {
                for c in 0..<target { output[i * target + c] = UInt8(input[i * channels + source(c)] >> 8) }
            }
        case (.float32, .uint8):
            let input = data.assumingMemoryBound(to: Float.self), output = result.data.assumingMemoryBound(to: UInt8.self)
            for i in 0..<pixels {
                for c in 0..<target {
                    let value = input[i * channels + source(c)]
                    output[i * target + c] = value.isFinite ? UInt8(max(0, min(255, (value * 255).rounded()))) : 0
                }
            }
        default:
            let bytes = format.bytesPerSample
            for i in 0..<pixels {
                for c in 0..<target {
                    (result.data + (i * target + c) * bytes)
                        .copyMemory(from: data + (i * channels + source(c)) * bytes, byteCount: bytes)
                }
            }
        }
        return result
    }

    /// These RGB pixels with `alpha` (one channel, the same size) as a fourth
    /// channel, in this image's sample format (an 8-bit alpha of a 16-bit
    /// image is spread over 16 bits, a 16-bit one of an 8-bit image keeps its high byte).
    package func addingAlpha(_ alpha: PixelImage) -> PixelImage? {
        guard channels == 3, alpha.channels == 1, alpha.width == width, alpha.height == height,
            format != .float32, alpha.format != .float32
        else { return nil }
        let result = PixelImage(width: width, height: height, channels: 4, format: format)
        let bytes = format.bytesPerSample
        for i in 0..<(width * height) {
            (result.data + i * 4 * bytes).copyMemory(from: data + i * 3 * bytes, byteCount: 3 * bytes)
            let value = alpha.sample(x: i % width, y: i / width)
            switch (format, alpha.format) {
            case (.uint8, .uint16): result.data.storeBytes(of: UInt8(Int(value) >> 8), toByteOffset: i * 4 + 3, as: UInt8.self)
            case (.uint8, _): result.data.storeBytes(of: UInt8(value), toByteOffset: i * 4 + 3, as: UInt8.self)
            case (_, .uint8): result.data.storeBytes(of: UInt16(value) * 257, toByteOffset: (i * 4 + 3) * 2, as: UInt16.self)
            default: result.data.storeBytes(of: UInt16(value), toByteOffset: (i * 4 + 3) * 2, as: UInt16.self)
            }
        }
        return result
    }
}
