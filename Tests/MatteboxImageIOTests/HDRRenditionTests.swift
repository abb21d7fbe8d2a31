import Foundation
import MatteboxCore
import Testing

@testable import MatteboxImageOps

/// The contact sheet's HDR rendition follows Apple's rule: where the gain map is full, the pixel
/// is the primary's own at the headroom's scale (boost = headroom, divided by it); where it is
/// empty, the primary dimmed by the headroom.
struct HDRRenditionTests {
    @Test func fullGainKeepsThePixelAndNoGainDimsItByTheHeadroom() {
        let primary = PixelImage(width: 2, height: 1, channels: 3, format: .uint8)
        let map = PixelImage(width: 2, height: 1, channels: 1, format: .uint8)
        let p = primary.data.assumingMemoryBound(to: UInt8.self), m = map.data.assumingMemoryBound(to: UInt8.self)
        for i in 0..<6 { p[i] = 188 }
        (m[0], m[1]) = (0, 255)
        let out = ContactSheet.hdrRendition(primary, gainMap: map, headroomStops: 1.8)
        let o = out.data.assumingMemoryBound(to: UInt8.self)
        #expect(o[3] == 188, "full gain: the pixel at the headroom's own scale")
        // sRGB 188 is 0.497 linear; a 3.48x headroom brings it to 0.143, sRGB 107.
        #expect(abs(Int(o[0]) - 107) <= 1, "no gain: \(o[0])")
    }
}
