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
