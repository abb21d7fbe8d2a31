import CTurboJPEG
import MatteboxCore
import MatteboxRuntime

/// Turns and mirrors a JPEG in the DCT domain with libjpeg-turbo's transform
/// (what `jpegtran -perfect` does): no decoding, no generation loss, every
/// marker kept. A turn is lossless only when the edges it moves are whole
/// MCUs (8 or 16 px blocks, by chroma subsampling); jpegtran would trim the
/// partial blocks, which changes the picture's size, so here such a turn is
/// refused (nil) and the caller encodes the turned pixels instead.
enum LosslessJPEG {
    /// The JPEG turned by `geometry` (stored → shown, mirror first then clockwise
    /// turns), or nil when that turn cannot be lossless for this JPEG's size.
    static func transform(_ jpeg: [UInt8], by geometry: ExifOrientation) throws -> [UInt8]? {
        guard let handle = tjInitTransform() else { throw MatteboxError("libturbojpeg could not start") }
        defer { tjDestroy(handle) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colourspace: Int32 = 0
        let header = jpeg.withUnsafeBufferPointer {
            tjDecompressHeader3(handle, $0.baseAddress, UInt($0.count), &width, &height, &subsampling, &colourspace)
        }
        guard header == 0 else { throw MatteboxError("libturbojpeg: \(String(cString: tjGetErrorStr2(handle)))") }
        let operation = self.operation(for: geometry)
        guard perfect(operation, width: Int(width), height: Int(height), mcu: mcu(subsampling)) else { return nil }
        var transform = tjtransform()
        transform.op = Int32(operation.rawValue)
        transform.options = TJXOPT_PERFECT
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let status = jpeg.withUnsafeBufferPointer {
            tjTransform(handle, $0.baseAddress, UInt($0.count), 1, &output, &size, &transform, 0)
        }
        defer { if let output { tjFree(output) } }
        guard status == 0, let output else {
            throw MatteboxError("libturbojpeg could not turn the JPEG: \(String(cString: tjGetErrorStr2(handle)))")
        }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    /// The size of the JPEG's minimum coded unit in pixels, by its chroma subsampling.
    static func mcu(_ subsampling: Int32) -> (width: Int, height: Int) {
        switch UInt32(subsampling) {
        case TJSAMP_422.rawValue: return (16, 8)
        case TJSAMP_420.rawValue: return (16, 16)
        case TJSAMP_440.rawValue: return (8, 16)
        case TJSAMP_411.rawValue: return (32, 8)
        default: return (8, 8)  // 4:4:4, grey
        }
    }

    /// libjpeg-turbo's rules: which edges a transform moves, so must be whole MCUs.
    static func perfect(_ operation: TJXOP, width: Int, height: Int, mcu: (width: Int, height: Int)) -> Bool {
        let wholeColumns = width % mcu.width == 0, wholeRows = height % mcu.height == 0
        switch operation {
        case TJXOP_HFLIP, TJXOP_ROT270: return wholeColumns
        case TJXOP_VFLIP, TJXOP_ROT90: return wholeRows
        case TJXOP_TRANSVERSE, TJXOP_ROT180: return wholeColumns && wholeRows
        default: return true  // none, transpose
        }
    }

    /// Mirror first, then clockwise turns, as TurboJPEG names it.
    static func operation(for geometry: ExifOrientation) -> TJXOP {
        switch (geometry.isMirrored, geometry.clockwiseQuarterTurns) {
        case (false, 1): return TJXOP_ROT90
        case (false, 2): return TJXOP_ROT180
        case (false, 3): return TJXOP_ROT270
        case (true, 0): return TJXOP_HFLIP
        case (true, 1): return TJXOP_TRANSVERSE
        case (true, 2): return TJXOP_VFLIP
        case (true, 3): return TJXOP_TRANSPOSE
        default: return TJXOP_NONE
        }
    }
}
