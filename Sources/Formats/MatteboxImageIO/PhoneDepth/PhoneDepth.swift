import Foundation
import MatteboxCore
import MatteboxMetadata

/// The depth and mattes a phone stored in a JPEG, read into the Photo as the
/// phone's own auxiliary images, each with where it came from: an iPhone's
/// disparity and mattes as MPF images after the primary (`AppleDepthJPEG`),
/// Google's Lens Blur depth and unblurred photo in XMP (`LensBlurDepth`), and
/// Dynamic Depth's items appended after the JPEG (`DynamicDepth`). Why it
/// exists: years of portrait photos hold their depth in JPEGs, and a reader
/// that does not see it drops it without a word. A damaged part is a note on
/// the photo; the primary is read all the same.
package enum PhoneDepth {
    /// The unblurred photo Lens Blur keeps beside its blurred primary (GImage).
    package static let lensBlurOriginal: ImageRole = "com.google.gimage"
    /// A Dynamic Depth confidence map.
    package static let depthConfidence: ImageRole = "com.google.depth-confidence"

    /// What was found, in the order found.
    struct Found {
        var images: [(role: ImageRole, image: PixelImage, info: AuxiliaryImageInfo)] = []
        var problems: [String] = []
        /// The phone's own focus and blur, when the file records them (Lens Blur's GFocus).
        var focus: PhoneFocus?
        /// What the gain map found means (an Ultra HDR gain map's headroom or ISO 21496-1 metadata).
        var gainMap: GainMapMeaning?
    }

    /// The roles a JPEG output holds beside its primary: depth or disparity and the mattes
    /// (written as Dynamic Depth when they are new), and what the file's own bytes still hold.
    package static let jpegRoles = Set(ImageRole.depthRoles + ImageRole.mattes)

    /// True when every image of `photo` a JPEG can hold is the one read from its own file, unchanged.
    package static func fileStillHoldsAll(_ photo: Photo) -> Bool {
        photo.auxiliary.allSatisfy { role, image in
            role == .alpha || photo.metadata.auxiliaryInfo[role]?.fingerprint == PixelFingerprint(image)
        }
    }

    /// The roles a JPEG output of `photo` keeps: all of them when each is the one its input file
    /// held (the file's own bytes, or Dynamic Depth when the primary is encoded anew), else with
    /// depth the depth and mattes (as Dynamic Depth), else none.
    /// The gain map goes as Ultra HDR when its meaning is known.
    package static func rolesHeldByJPEG(of photo: Photo) -> Set<ImageRole> {
        if fileStillHoldsAll(photo) { return Set(photo.auxiliary.keys) }
        var roles: Set<ImageRole> = photo.auxiliary[.depth] != nil || photo.auxiliary[.disparity] != nil ? jpegRoles : []
        switch UltraHDRJPEG.plan(for: photo) {
        case .write: roles.insert(UltraHDRJPEG.gainMapRole)
        case .writeISO: roles.insert(.isoGainMap)
        case .none, .cannot: break
        }
        return roles
    }

    /// True when `jpeg` still carries Lens Blur's unblurred photo (its extended XMP was carried).
    package static func holdsLensBlurOriginal(_ jpeg: [UInt8], xmp: Data?) -> Bool {
        LensBlurDepth.holdsOriginal(jpeg, xmp: xmp)
    }

    /// `jpeg`'s first image alone: without the MPF images, items or movie after its end.
    package static func primaryJPEG(of jpeg: [UInt8]) -> [UInt8] {
        guard let end = JPEGSegments.endOfImage(in: jpeg) else { return jpeg }
        return Array(jpeg[..<end])
    }

    /// A depth map as disparity in 1/m (float, larger is nearer). Its values are read as HEIF
    /// stores them: float metres, 8- or 16-bit over `representation`'s range when it has one,
    /// else 16-bit millimetres (8-bit without a range has no distance: nil).
    package static func disparity(fromDepth depth: PixelImage, representation: DepthRepresentation?) -> PixelImage? {
        let range = representation?.kind == .uniformZ ? representation?.valueRange : nil
        let metres: (Double) -> Double
        switch (depth.format, range) {
        case (.float32, _): metres = { $0 }
        case (.uint8, let range?): metres = { range.lowerBound + $0 / 255 * (range.upperBound - range.lowerBound) }
        case (.uint16, let range?): metres = { range.lowerBound + $0 / 65535 * (range.upperBound - range.lowerBound) }
        case (.uint16, nil): metres = { $0 / 1000 }
        case (.uint8, nil): return nil
        }
        let out = PixelImage(width: depth.width, height: depth.height, channels: 1, format: .float32)
        let p = out.data.assumingMemoryBound(to: Float.self)
        for y in 0..<depth.height {
            for x in 0..<depth.width {
                let d = metres(depth.sample(x: x, y: y))
                p[y * depth.width + x] = d > 0 && d.isFinite ? Float(1 / d) : 0
            }
        }
        return out
    }

    /// Reads what `jpeg` (the whole file) holds beyond its primary into `photo`;
    /// `xmp` is its main XMP packet. Images the photo already has are left as they are.
    package static func read(jpeg: [UInt8], xmp: Data?, into photo: inout Photo) {
        var found = Found()
        let main = xmp.flatMap { try? XMPPacket($0) }
        if let main, main.uses(XMPNamespace.dynamicDepthDevice) {
            DynamicDepth.read(jpeg, main: main, into: &found)
        }
        AppleDepthJPEG.read(jpeg, into: &found)
        UltraHDRJPEG.read(jpeg, into: &found)
        if let main, main.uses(XMPNamespace.googleDepth) || main.uses(XMPNamespace.googleImage) {
            LensBlurDepth.read(jpeg, main: main, into: &found)
        }
        for (role, image, info) in found.images where photo.auxiliary[role] == nil {
            photo.setAuxiliary(image, for: role)
            var info = info
            info.fingerprint = PixelFingerprint(image)
            photo.metadata.auxiliaryInfo[role] = info
        }
        if !found.problems.isEmpty { photo.metadata.notes["phoneDepth"] = found.problems.joined(separator: "; ") }
        if let meaning = found.gainMap, photo.auxiliary[.appleHDRGainMap] != nil || photo.auxiliary[.isoGainMap] != nil,
            photo.metadata.gainMap == GainMapMeaning()
        {
            photo.metadata.gainMap = meaning
        }
        if let focus = found.focus { photo.metadata.shared[PhoneFocus.sharedName] = focus.encoded }
    }
}
