import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxImageOps
import MatteboxMetadata
import Testing

/// The contact sheet's HDR rendition follows each form's rule. Apple's: where the gain map is
/// full, the pixel is the primary's own at the headroom's scale (boost = headroom, divided by it);
/// where it is empty, the primary dimmed by the headroom. ISO 21496-1's: each channel by its own
/// map and mapping, offsets added before and taken after.
struct HDRRenditionTests {
    @Test func fullGainKeepsThePixelAndNoGainDimsItByTheHeadroom() {
        let primary = PixelImage(width: 2, height: 1, channels: 3, format: .uint8)
        let map = PixelImage(width: 2, height: 1, channels: 1, format: .uint8)
        let p = primary.data.assumingMemoryBound(to: UInt8.self), m = map.data.assumingMemoryBound(to: UInt8.self)
        for i in 0..<6 { p[i] = 188 }
        (m[0], m[1]) = (0, 255)
        let out = GainMapRendition.apple(headroomStops: 1.8).applied(to: primary, gainMap: map)
        let o = out.data.assumingMemoryBound(to: UInt8.self)
        #expect(o[3] == 188, "full gain: the pixel at the headroom's own scale")
        // sRGB 188 is 0.497 linear; a 3.48x headroom brings it to 0.143, sRGB 107.
        #expect(abs(Int(o[0]) - 107) <= 1, "no gain: \(o[0])")
    }

    /// A map per channel that brightens red and darkens blue, read from a photo as its reader
    /// keeps it (the role, the metadata bytes), drawn as ISO 21496-1's formula says.
    @Test func anISOMapPerChannelBrightensAndDarkensEachChannelByItsOwnMapping() throws {
        let bright = GainMapMetadata.Channel(gainMapMin: 0, gainMapMax: 2, gamma: 1, baseOffset: 1.0 / 64, alternateOffset: 1.0 / 64)
        let dark = GainMapMetadata.Channel(gainMapMin: -1, gainMapMax: 0, gamma: 1, baseOffset: 1.0 / 64, alternateOffset: 1.0 / 64)
        let metadata = GainMapMetadata(isMultichannel: true, baseHeadroom: 0, alternateHeadroom: 2, channels: [bright, bright, dark])
        var photo = Photo(primary: PixelImage(width: 1, height: 1, channels: 3, format: .uint8))
        let p = photo.primary.data.assumingMemoryBound(to: UInt8.self)
        (p[0], p[1], p[2]) = (188, 188, 188)
        let map = PixelImage(width: 1, height: 1, channels: 3, format: .uint8)
        let m = map.data.assumingMemoryBound(to: UInt8.self)
        (m[0], m[1], m[2]) = (255, 0, 0)
        photo.auxiliary[.isoGainMap] = map
        photo.metadata.gainMap = GainMapMeaning(iso21496: metadata.encoded(leadingVersion: false))

        let rendition = try #require(GainMapForms.rendition(of: photo))
        #expect(rendition.role == .isoGainMap && rendition.channels.count == 3 && rendition.headroomStops == 2)
        let out = rendition.applied(to: photo.primary, gainMap: rendition.readable(map))
        let o = out.data.assumingMemoryBound(to: UInt8.self)
        func srgb(_ linear: Double) -> Int {
            Int(((linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055) * 255).rounded())
        }
        let sdr = pow((188.0 / 255 + 0.055) / 1.055, 2.4), k = 1.0 / 64
        #expect(abs(Int(o[0]) - srgb(((sdr + k) * 4 - k) / 4)) <= 1, "red, boosted 4x: \(o[0])")
        #expect(abs(Int(o[1]) - srgb(((sdr + k) * 1 - k) / 4)) <= 1, "green, no boost: \(o[1])")
        #expect(abs(Int(o[2]) - srgb(((sdr + k) * 0.5 - k) / 4)) <= 1, "blue, halved: \(o[2])")
        #expect(o[0] > o[1] && o[1] > o[2])
    }

    /// An ISO map whose base is the HDR one has no rendition to draw beyond the primary.
    @Test func anHDRBaseHasNoRenditionToDraw() {
        let channel = GainMapMetadata.Channel(gainMapMin: -2, gainMapMax: 0, gamma: 1, baseOffset: 0, alternateOffset: 0)
        var photo = Photo(primary: PixelImage(width: 1, height: 1, channels: 3, format: .uint8))
        photo.auxiliary[.isoGainMap] = PixelImage(width: 1, height: 1, channels: 1, format: .uint8)
        photo.metadata.gainMap = GainMapMeaning(
            iso21496: GainMapMetadata(baseHeadroom: 2, alternateHeadroom: 0, channels: [channel]).encoded(leadingVersion: false))
        #expect(GainMapForms.rendition(of: photo) == nil)
    }
}
