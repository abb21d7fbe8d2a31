import Foundation
import MatteboxCore
import MatteboxISOBMFF
import MatteboxMetadata

/// An ISO 21496-1 tone map (`tmap` derived image item) made for a gain map Mattebox encoded:
/// over the primary and Apple's gain map item, with metadata that says what Apple's samples
/// mean (`AppleGainMapCurve.isoDescription`), in an `altr` group with the primary and the
/// `tmap` brand, as iOS 18 writes one. Why it exists: AVIF readers (Chrome, libavif) find a gain
/// map only through a tone map, and Apple's own form says its headroom only in a maker note.
enum HEIFToneMap {
    static let gainMapRole: ImageRole = "com.apple.hdrgainmap"

    /// The headroom the photo's gain map reaches: as its own form stated it (Ultra HDR), else as
    /// the iPhone's maker note does.
    static func headroomStops(of photo: Photo) -> Double? {
        guard let stops = photo.metadata.auxiliaryInfo[gainMapRole]?.headroomStops ?? photo.metadata.exif?.appleHDRHeadroom?.stops,
            stops >= 0.01
        else { return nil }
        return stops
    }

    /// Adds the `tmap` item (at the primary's stored `size`, turned as it is), its references and group.
    static func add(
        over primary: UInt16, gainMap: UInt16, headroomStops: Double, size: (width: Int, height: Int), transforms: [[UInt8]],
        to builder: inout HEIFBuilder
    ) throws {
        let metadata = AppleGainMapCurve.isoDescription(headroomStops: headroomStops).metadata
        let item = try builder.addItem(type: "tmap", hidden: false, data: metadata.encoded(leadingVersion: true))
        let ispe = ByteWriter.fullBox("ispe") { $0.u32(UInt32(size.width)); $0.u32(UInt32(size.height)) }
        builder.associate(item, property: ispe, essential: false)
        for box in transforms { builder.associate(item, property: box, essential: true) }
        builder.addReference("dimg", from: item, to: [primary, gainMap])
        builder.addEntityGroup("altr", items: [item, primary])
        builder.compatibleBrands.append("tmap")
    }
}
