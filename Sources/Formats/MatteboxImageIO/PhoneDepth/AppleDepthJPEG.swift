import Foundation
import MatteboxCore
import MatteboxMetadata

/// An iPhone's depth and mattes in a JPEG (iPhone 7 Plus to XS in JPEG mode,
/// and any iPhone set to Most Compatible): extra JPEG images listed by the MPF
/// index, each naming itself in Apple XMP: `apdi:AuxiliaryImageType` disparity
/// or depth with its float range, the portrait effects matte, semantic mattes,
/// the HDR gain map.
package enum AppleDepthJPEG {
    /// One image after the primary, as its MPF entry and Apple XMP describe it.
    package struct Described {
        package var number: Int
        package var image: [UInt8]
        package var packet: XMPPacket
        package var xmp: Data
        package var role: ImageRole
        package var kind: String
    }

    /// The images after the primary that name themselves a depth, disparity or matte, without
    /// decoding them; `problems` gains what could not be read. Throws when the index is damaged.
    package static func describedImages(in jpeg: [UInt8], problems: inout [String]) throws(MPFError) -> [Described] {
        guard let index = try MPFIndex.read(from: jpeg) else { return [] }
        var described: [Described] = []
        for (position, entry) in index.entries.enumerated().dropFirst() {
            let number = position + 1
            let bytes = jpeg[entry.fileOffset..<(entry.fileOffset + entry.size)]
            guard bytes.starts(with: [0xFF, 0xD8]) else {
                problems.append("MPF image \(number) is not a JPEG where the index says it starts: not read")
                continue
            }
            let image = Array(bytes)
            guard let payload = JPEGSegments.app1Payload(startingWith: JPEGSegments.xmpHeader, in: image),
                case let xmp = Data(payload.dropFirst(JPEGSegments.xmpHeader.count)),
                let packet = try? XMPPacket(xmp),
                let (role, kind) = role(of: packet)
            else {
                if UltraHDRJPEG.isGainMap(image) { continue } // read as the photo's gain map
                // A camera's preview or a stereo pair's other view: kept only by JPEG outputs.
                problems.append("MPF image \(number) (\(entry.typeDescription), \(entry.size) bytes) is no depth or matte Mattebox knows: only a JPEG output keeps it")
                continue
            }
            described.append(Described(number: number, image: image, packet: packet, xmp: xmp, role: role, kind: kind))
        }
        return described
    }

    static func read(_ jpeg: [UInt8], into found: inout PhoneDepth.Found) {
        let described: [Described]
        do { described = try describedImages(in: jpeg, problems: &found.problems) } catch {
            found.problems.append("the MPF index is damaged (\(error)): the images after the primary were not read")
            return
        }
        for item in described {
            let (number, image, packet, role, kind) = (item.number, item.image, item.packet, item.role, item.kind)
            do {
                let pixels = try EmbeddedImage.grey(image, what: "MPF image \(number)")
                var info = AuxiliaryImageInfo(xmp: item.xmp, source: "iPhone JPEG \(kind) (MPF image \(number))")
                if role == .disparity || role == .depth,
                    let low = packet.value(.appleFloatMinValue).flatMap(Double.init), let high = packet.value(.appleFloatMaxValue).flatMap(Double.init)
                {
                    info.depth = role == .disparity
                        ? DepthRepresentation(kind: .uniformDisparity, disparityMinimum: low, disparityMaximum: high)
                        : DepthRepresentation(kind: .uniformZ, nearestDepth: low, farthestDepth: high)
                }
                found.images.append((role, pixels, info))
            } catch {
                found.problems.append("MPF image \(number) (the \(kind)) cannot be decoded: \(error)")
            }
        }
    }

    /// The role an MPF image's Apple XMP gives it, and what to call it.
    static func role(of packet: XMPPacket) -> (ImageRole, String)? {
        let subtype = packet.value(.appleAuxiliaryImageSubType)?.lowercased() ?? ""
        if packet.uses(XMPNamespace.applePortraitEffectsMatte) || subtype.contains("portraiteffectsmatte") {
            return (.portraitMatte, "portrait effects matte")
        }
        let semantic = ImageRole.mattesByShortName.filter { $0.role != .portraitMatte }
        // Semantic mattes name their class in the subtype, as their HEIF types do ("semanticskinmatte").
        if let match = semantic.first(where: { subtype.contains($0.0) }) { return (match.1, "\(match.0) matte") }
        if packet.uses(XMPNamespace.appleHDRGainMap) { return (.appleHDRGainMap, "HDR gain map") }
        switch packet.value(.appleAuxiliaryImageType)?.lowercased() {
        case "disparity": return (.disparity, "disparity")
        case "depth": return (.depth, "depth")
        default: return nil
        }
    }
}
