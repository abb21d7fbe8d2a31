import Foundation
import MatteboxCore
import MatteboxISOBMFF
import MatteboxMetadata

/// An ISO 21496-1 tone map (`tmap` derived image item) made for a gain map Mattebox encoded:
/// over the primary and Apple's gain map item, with metadata that says what Apple's samples
/// mean (`isoDescription`), or over a map kept in ISO 21496-1's own form with its own metadata, in an `altr` group with the primary and the
/// `tmap` brand, as iOS 18 writes one. Why it exists: AVIF readers (Chrome, libavif) find a gain
/// map only through a tone map, and Apple's own form says its headroom only in a maker note.
enum HEIFToneMap {
    static let gainMapRole = ImageRole.appleHDRGainMap

    /// Adds the `tmap` item, its references and group. It is made from the primary and gain map as
    /// they are shown, each turned by its own `irot`/`imir` (HEIF 6.6.1), so it has the primary's
    /// `shownSize` and no turn of its own, as iOS 18 writes it.
    static func add(
        over primary: UInt16, gainMap: UInt16, metadata: GainMapMetadata, shownSize size: (width: Int, height: Int),
        to builder: inout HEIFBuilder
    ) throws {
        let item = try builder.addItem(type: "tmap", hidden: false, data: metadata.encoded(leadingVersion: true))
        let ispe = ByteWriter.fullBox("ispe") { $0.u32(UInt32(size.width)); $0.u32(UInt32(size.height)) }
        builder.associate(item, property: ispe, essential: false)
        builder.addReference("dimg", from: item, to: [primary, gainMap])
        builder.addEntityGroup("altr", items: [item, primary])
        builder.compatibleBrands.append("tmap")
    }

    /// ISO 21496-1 metadata that describes an Apple map's own samples, as iOS 18 writes beside
    /// them: log2 boost from 0 to the headroom's stops, no offsets, and the gamma that best fits
    /// Apple's curve (the largest relative error of the boost over the 256 samples is returned:
    /// about 3% at 1.8 stops; iOS 18's own fit on its sample is alike).
    static func isoDescription(headroomStops stops: Double) -> (metadata: GainMapMetadata, largestError: Double) {
        let exact = (0..<256).map { AppleGainMapCurve.boost(sample: Double($0), headroomStops: stops) }
        func largestError(_ gamma: Double) -> Double {
            (0..<256).reduce(0) { worst, sample in
                let iso = pow(2, stops * pow(Double(sample) / 255, 1 / gamma))
                return max(worst, abs(iso - exact[sample]) / exact[sample])
            }
        }
        // The error is unimodal in gamma: a golden-section search over 0.2...2.
        var (low, high) = (0.2, 2.0)
        let ratio = (sqrt(5) - 1) / 2
        for _ in 0..<40 {
            let a = high - ratio * (high - low), b = low + ratio * (high - low)
            if largestError(a) < largestError(b) { high = b } else { low = a }
        }
        let gamma = (low + high) / 2
        let channel = GainMapMetadata.Channel(gainMapMin: 0, gainMapMax: stops, gamma: gamma, baseOffset: 0, alternateOffset: 0)
        return (GainMapMetadata(baseHeadroom: 0, alternateHeadroom: stops, channels: [channel]), largestError(gamma))
    }
}
