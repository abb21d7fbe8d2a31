import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxRuntime
import MatteboxTestSupport

/// Phone JPEGs with depth, built byte by byte as each format lays them out, so
/// the readers are tested on a fresh clone too (the real phone photos are in
/// ../shared/depth-samples): an iPhone's MPF images with Apple XMP (CIPA
/// DC-007 index in APP2), Lens Blur's GDepth/GImage in extended XMP (XMP
/// Specification Part 3, 1.1.3.1), and damaged variants of both.
enum PhoneDepthFixtures {
    static let width = 48, height = 32

    /// A JPEG of the test pattern (the primary).
    static func primary() throws -> [UInt8] { [UInt8](try ImageEncoder.encode(TestImages.pattern(width: width, height: height), as: .jpeg)) }

    /// A grey JPEG with a horizontal gradient from 20 to 230 (a disparity map: the right is near).
    static func gradient(width: Int = 24, height: Int = 16, xmp: String? = nil) throws -> [UInt8] {
        let image = PixelImage(width: width, height: height, channels: 1, format: .uint8)
        for y in 0..<height {
            for x in 0..<width { image.data.storeBytes(of: UInt8(20 + 210 * x / (width - 1)), toByteOffset: y * width + x, as: UInt8.self) }
        }
        let jpeg = [UInt8](try ImageEncoder.encode(image, as: .jpeg, quality: 100))
        return try xmp.map { try withXMP(jpeg, $0) } ?? jpeg
    }

    /// `jpeg` with an APP1 XMP segment holding `xmp` right after its SOI.
    static func withXMP(_ jpeg: [UInt8], _ xmp: String) throws -> [UInt8] {
        inserting(segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(xmp.utf8)), into: jpeg)
    }

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    /// `segment` put right after the SOI.
    static func inserting(_ segment: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        Array(jpeg[..<2]) + segment + Array(jpeg[2...])
    }

    static func xmpPacket(_ namespaces: [String: String], _ body: String) -> String {
        let declared = namespaces.sorted { $0.key < $1.key }.map { " xmlns:\($0.key)=\"\($0.value)\"" }.joined()
        return "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
            + "<rdf:Description rdf:about=\"\"\(declared)>\(body)</rdf:Description></rdf:RDF></x:xmpmeta>"
    }

    /// Apple's pixel data info of a disparity map (as an iPhone X writes it in its MPF image).
    static let appleDisparityXMP = xmpPacket(
        ["apdi": "http://ns.apple.com/pixeldatainfo/1.0/"],
        "<apdi:NativeFormat>1751410032</apdi:NativeFormat><apdi:Version>2</apdi:Version>"
            + "<apdi:AuxiliaryImageType>disparity</apdi:AuxiliaryImageType>"
            + "<apdi:FloatMaxValue>1.5</apdi:FloatMaxValue><apdi:FloatMinValue>0.5</apdi:FloatMinValue>")
    static let appleMatteXMP = xmpPacket(
        ["PortraitEffectsMatte": "http://ns.apple.com/portraitEffectsMatte/1.0/"],
        "<PortraitEffectsMatte:PortraitEffectsMatteVersion>65536</PortraitEffectsMatte:PortraitEffectsMatteVersion>")

    /// What an MPF entry says about one extra image, for making damaged indexes.
    struct Entry {
        var size: Int?
        var offsetShift = 0
    }

    /// An iPhone-style JPEG: the primary with an MPF index in APP2 listing itself and
    /// `extras`, which follow its EOI. `entries` can falsify each extra's entry.
    static func appleMPF(primary: [UInt8], extras: [[UInt8]], entries: [Entry]? = nil, claimedImages: Int? = nil) -> [UInt8] {
        let count = extras.count + 1
        // APP2: "MPF\0", then a big-endian TIFF header, an IFD of three fields, the entries.
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let ifdLength = 2 + 3 * 12 + 4
        let entriesAt = 8 + ifdLength // relative to the TIFF header
        let payloadLength = 4 + entriesAt + 16 * count
        let segmentLength = 4 + payloadLength
        let primaryLength = primary.count + segmentLength
        let tiffHeaderInFile = 2 + 4 + 4 // SOI, marker and length, "MPF\0"
        var payload = Array("MPF\0".utf8) + [0x4D, 0x4D, 0x00, 0x2A] + be32(8)
        payload += be16(3)
        payload += be16(0xB000) + be16(7) + be32(4) + Array("0100".utf8)
        payload += be16(0xB001) + be16(4) + be32(1) + be32(claimedImages ?? count)
        payload += be16(0xB002) + be16(7) + be32(16 * count) + be32(entriesAt)
        payload += be32(0)
        payload += be32(0x2003_0000) + be32(primaryLength) + be32(0) + be16(0) + be16(0)
        var start = primaryLength
        for (index, extra) in extras.enumerated() {
            let entry = entries?[index] ?? Entry()
            payload += be32(0x0000_0000) + be32(entry.size ?? extra.count) + be32(start - tiffHeaderInFile + entry.offsetShift) + be16(0) + be16(0)
            start += extra.count
        }
        return inserting(segment(0xE2, payload), into: primary) + extras.joined()
    }

    /// A Lens Blur JPEG: GDepth (RangeInverse, Near 1 m, Far 10 m, a PNG depth map that is
    /// 255 on the left, 0 on the right) and GImage (the pattern) in extended XMP, in `pieces`
    /// segments. `arrange` may reorder or drop pieces.
    static func lensBlur(pieces: Int = 3, arrange: ([[UInt8]]) -> [[UInt8]] = { $0 }) throws -> [UInt8] {
        let depth = PixelImage(width: 24, height: 16, channels: 1, format: .uint8)
        for y in 0..<16 {
            for x in 0..<24 { depth.data.storeBytes(of: UInt8(255 - 255 * x / 23), toByteOffset: y * 24 + x, as: UInt8.self) }
        }
        let png = try ImageEncoder.encode(depth, as: .png).base64EncodedString()
        let original = try ImageEncoder.encode(TestImages.pattern(width: width, height: height), as: .jpeg).base64EncodedString()
        let extension_ = Array(xmpPacket(
            ["GDepth": "http://ns.google.com/photos/1.0/depthmap/", "GImage": "http://ns.google.com/photos/1.0/image/"],
            "<GDepth:Data>\(png)</GDepth:Data><GImage:Data>\(original)</GImage:Data>").utf8)
        let guid = ContentHash.md5GUID(extension_)
        let main = xmpPacket(
            [
                "GDepth": "http://ns.google.com/photos/1.0/depthmap/", "GImage": "http://ns.google.com/photos/1.0/image/",
                "xmpNote": "http://ns.adobe.com/xmp/note/",
            ],
            "<GDepth:Format>RangeInverse</GDepth:Format><GDepth:Near>1</GDepth:Near><GDepth:Far>10</GDepth:Far>"
                + "<GDepth:Mime>image/png</GDepth:Mime><GImage:Mime>image/jpeg</GImage:Mime>"
                + "<xmpNote:HasExtendedXMP>\(guid)</xmpNote:HasExtendedXMP>")
        let chunk = (extension_.count + pieces - 1) / pieces
        var segments: [[UInt8]] = []
        for start in stride(from: 0, to: extension_.count, by: chunk) {
            let piece = extension_[start..<min(extension_.count, start + chunk)]
            func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
            segments.append(segment(0xE1, Array("http://ns.adobe.com/xmp/extension/\0".utf8) + Array(guid.utf8) + be32(extension_.count) + be32(start) + piece))
        }
        var jpeg = try withXMP(try primary(), main)
        // The extension's segments follow the main XMP (SOI, APP1 main, then these).
        let mainEnd = 2 + 2 + (Int(jpeg[4]) << 8 | Int(jpeg[5]))
        jpeg = Array(jpeg[..<mainEnd]) + arrange(segments).joined() + Array(jpeg[mainEnd...])
        return jpeg
    }

    /// A Dynamic Depth JPEG whose directory lists the primary and one depth item of `length`
    /// bytes (`padding` of them padding), with 64 bytes appended after the primary.
    static func dynamicDepth(length: String, padding: String) throws -> [UInt8] {
        func ns(_ name: String) -> String { "http://ns.google.com/photos/dd/1.0/\(name.lowercased())/" }
        let xmp = xmpPacket(
            ["Device": ns("Device"), "Container": ns("Container"), "Item": ns("Item"), "Camera": ns("Camera"), "DepthMap": ns("DepthMap")],
            "<Device:Cameras><rdf:Seq><rdf:li rdf:parseType=\"Resource\"><Device:Camera rdf:parseType=\"Resource\">"
                + "<Camera:DepthMap rdf:parseType=\"Resource\"><DepthMap:Format>RangeInverse</DepthMap:Format><DepthMap:Near>1</DepthMap:Near>"
                + "<DepthMap:Far>10</DepthMap:Far><DepthMap:DepthURI>android/depthmap</DepthMap:DepthURI></Camera:DepthMap>"
                + "</Device:Camera></rdf:li></rdf:Seq></Device:Cameras>"
                + "<Device:Container rdf:parseType=\"Resource\"><Container:Directory><rdf:Seq>"
                + "<rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Mime=\"image/jpeg\" Item:Length=\"0\"/></rdf:li>"
                + "<rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Mime=\"image/png\" Item:Length=\"\(length)\" "
                + "Item:Padding=\"\(padding)\" Item:DataURI=\"android/depthmap\"/></rdf:li>"
                + "</rdf:Seq></Container:Directory></Device:Container>")
        return try withXMP(try primary(), xmp) + [UInt8](repeating: 0x42, count: 64)
    }
}
