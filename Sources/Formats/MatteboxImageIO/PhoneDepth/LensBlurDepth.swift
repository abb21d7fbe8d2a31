import Foundation
import MatteboxCore
import MatteboxMetadata

/// Google Camera's Lens Blur (GDepth 1.0): the depth map base64-encoded in XMP
/// (`GDepth:Format`, `Near`, `Far`, `Mime`, `Data`), usually in the extended
/// XMP, and `GImage:Data`, the photo before the phone's blur. The primary is
/// the blurred render; GImage is kept beside it (`com.google.gimage`) and the
/// portrait effect renders from it, so a new blur is not laid over the old.
enum LensBlurDepth {
    /// True when `jpeg` (with `xmp`, its main packet) carries a GImage (the extended XMP
    /// was carried with the primary), without decoding it.
    static func holdsOriginal(_ jpeg: [UInt8], xmp: Data?) -> Bool {
        guard let main = xmp.flatMap({ try? XMPPacket($0) }), main.uses(XMPNamespace.googleImage) else { return false }
        if main.value(.googleImage("Data")) != nil { return true }
        return (try? ExtendedXMP.read(jpeg: jpeg, main: main))??.value(.googleImage("Data")) != nil
    }

    static func read(_ jpeg: [UInt8], main: XMPPacket, into found: inout PhoneDepth.Found) {
        var packet = main
        if main.value(ExtendedXMP.guidName) != nil {
            do {
                if let extended = try ExtendedXMP.read(jpeg: jpeg, main: main) { packet.appendDescriptions(of: extended) }
            } catch {
                found.problems.append("the Lens Blur depth's extended XMP is damaged (\(error)): its depth map and unblurred photo were not read")
                return
            }
        }
        if packet.uses(XMPNamespace.googleDepth) {
            readDepth(packet, into: &found)
        }
        found.focus = focus(packet)
        if let encoded = packet.value(.googleImage("Data")) {
            guard let bytes = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters) else {
                found.problems.append("the Lens Blur unblurred photo (GImage) is not valid base64: not read")
                return
            }
            do {
                let original = try EmbeddedImage.colour(bytes, what: "the Lens Blur unblurred photo (GImage)")
                found.images.append((PhoneDepth.lensBlurOriginal, original, AuxiliaryImageInfo(source: "Lens Blur original (GImage): the photo before the phone's blur")))
            } catch {
                found.problems.append("the Lens Blur unblurred photo (GImage) cannot be decoded: \(error)")
            }
        }
    }

    /// GFocus: the point the user focused on (0...1 of the width and height), the distance
    /// focused at and the blur at infinity (a share of the width), with the depth's range in 1/m.
    private static func focus(_ packet: XMPPacket) -> PhoneFocus? {
        func number(_ name: XMPName) -> Double? { packet.value(name).flatMap(Double.init).flatMap { $0.isFinite ? $0 : nil } }
        guard let x = number(.googleFocus("FocalPointX")), let y = number(.googleFocus("FocalPointY")),
            (0...1).contains(x), (0...1).contains(y)
        else { return nil }
        var focus = PhoneFocus(x: x, y: y)
        if let distance = number(.googleFocus("FocalDistance")), distance > 0,
            let blur = number(.googleFocus("BlurAtInfinity")), blur >= 0, blur < 1,
            let near = number(.googleDepth("Near")), let far = number(.googleDepth("Far")), near > 0, far > near
        {
            // A thin lens's blur grows with |1/distance - 1/focus|: at infinity (1/d = 0) it is BlurAtInfinity,
            // so per unit of 1/distance it is BlurAtInfinity x FocalDistance, here over the depth's 1/far...1/near.
            focus.blurOverDepthRange = blur * distance * (1 / near - 1 / far)
        }
        return focus
    }

    private static func readDepth(_ packet: XMPPacket, into found: inout PhoneDepth.Found) {
        guard let encoded = packet.value(.googleDepth("Data")) else {
            found.problems.append("the Lens Blur depth map (GDepth) has no data: its extended XMP is missing")
            return
        }
        let format = packet.value(.googleDepth("Format")) ?? "RangeInverse"
        guard let bytes = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters) else {
            found.problems.append("the Lens Blur depth map (GDepth) is not valid base64: not read")
            return
        }
        let units = packet.value(.googleDepth("Units")) ?? "m"
        do {
            found.images.append(try EmbeddedImage.googleDepth(
                bytes, format: format, near: packet.value(.googleDepth("Near")), far: packet.value(.googleDepth("Far")),
                what: "the Lens Blur depth map (GDepth)"
            ) { near, far in String(format: "Lens Blur depth (GDepth %@, near %.4g %@, far %.4g %@)", format, near, units, far, units) })
        } catch {
            found.problems.append("\(error)")
        }
    }
}
