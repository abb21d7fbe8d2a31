import Foundation
import MatteboxCore
import MatteboxMetadata
import MatteboxRuntime

/// Google's Dynamic Depth 1.0 (Pixel Portrait photos; Android and Google Photos
/// read it): the JPEG's XMP describes a `Device` with a `Container:Directory`
/// of items (the primary first, then each appended after the JPEG in order,
/// `Item:Length` bytes each, `Item:Padding` of them padding) and cameras whose
/// `DepthMap` (Format RangeInverse or RangeLinear, Near, Far, Units,
/// MeasureType, DepthURI, ConfidenceURI) names the depth item by its
/// `Item:DataURI`. Mattes Mattebox adds travel as further PNG items whose
/// DataURI is `mattebox/<role>` (readers that do not know them skip them).
/// Checked against the specification (developer.android.com, Dynamic depth
/// format 1.0) and Android's reference implementation's field names: Device,
/// Profiles (DepthPhoto), Cameras, Camera (Trait, Image, DepthMap), Container,
/// Item (Mime, Length, Padding, DataURI), DepthMap (ItemSemantic, Format,
/// Near, Far, Units, MeasureType, DepthURI, ConfidenceURI).
package enum DynamicDepth {
    static let mattePrefix = "mattebox/"
    static let depthURI = "android/depthmap"
    static let confidenceURI = "android/confidencemap"

    // MARK: Reading

    static func read(_ jpeg: [UInt8], main: XMPPacket, into found: inout PhoneDepth.Found) {
        let byURI: [String: ArraySlice<UInt8>]
        do {
            guard let items = try items(in: jpeg, main: main) else { return }
            byURI = items
        } catch {
            found.problems.append(error.message)
            return
        }
        readDepth(main, byURI, into: &found)
        for (uri, bytes) in byURI.sorted(by: { $0.key < $1.key }) where uri.hasPrefix(mattePrefix) {
            let role = ImageRole(String(uri.dropFirst(mattePrefix.count)))
            guard role.isValidName, role != .primary else { continue }
            do {
                found.images.append((role, try EmbeddedImage.grey(bytes, what: "the Dynamic Depth item \(uri)"),
                                     AuxiliaryImageInfo(source: "Dynamic Depth item \(uri)")))
            } catch {
                found.problems.append("the Dynamic Depth item \(uri) cannot be decoded: \(error)")
            }
        }
    }

    /// The bytes of each item after the primary, by its `Item:DataURI`: they sit at the end of
    /// the file, in the directory's order. Nil when the directory lists none (and no depth map
    /// is named); throws naming what is wrong (a length missing or past the file's end, padding
    /// not less than its length).
    package static func items(in jpeg: [UInt8], main: XMPPacket) throws(MatteboxError) -> [String: ArraySlice<UInt8>]? {
        let items = main.directory(container: XMPNamespace.dynamicDepthContainer, item: XMPNamespace.dynamicDepthItem)
        guard items.count >= 2 else {
            guard main.deepValue(.dynamicDepthMap("DepthURI")) == nil else {
                throw MatteboxError("the Dynamic Depth container lists no item after the primary: its depth map was not read")
            }
            return nil
        }
        var sizes: [(length: Int, padding: Int)] = []
        for (number, item) in items.enumerated().dropFirst() {
            guard let length = item["Length"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), length > 0 else {
                throw MatteboxError("Dynamic Depth item \(number + 1) has no usable Item:Length: the items were not read")
            }
            guard length <= jpeg.count else {
                throw MatteboxError("Dynamic Depth item \(number + 1) claims \(length) bytes, more than the file's \(jpeg.count): the items were not read")
            }
            let padding = item["Padding"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0
            guard padding >= 0, padding < length else {
                throw MatteboxError("Dynamic Depth item \(number + 1)'s padding (\(padding)) is not less than its length (\(length)): the items were not read")
            }
            sizes.append((length, padding))
        }
        let total = sizes.reduce(0) { $0 + $1.length }
        guard total <= jpeg.count - 4 else {
            throw MatteboxError("the Dynamic Depth items claim \(total) bytes, more than the file's \(jpeg.count) after its primary: not read")
        }
        var offset = jpeg.count - total
        var byURI: [String: ArraySlice<UInt8>] = [:]
        for (item, size) in zip(items.dropFirst(), sizes) {
            if let uri = item["DataURI"] { byURI[uri] = jpeg[offset..<(offset + size.length - size.padding)] }
            offset += size.length
        }
        return byURI
    }

    private static func readDepth(_ main: XMPPacket, _ byURI: [String: ArraySlice<UInt8>], into found: inout PhoneDepth.Found) {
        guard let uri = main.deepValue(.dynamicDepthMap("DepthURI")) else { return }
        guard let bytes = byURI[uri] else {
            found.problems.append("the Dynamic Depth depth map names the item \(uri), which the container does not hold: not read")
            return
        }
        let format = main.deepValue(.dynamicDepthMap("Format")) ?? ""
        let units = main.deepValue(.dynamicDepthMap("Units")) ?? "Meters"
        do {
            found.images.append(try EmbeddedImage.googleDepth(
                bytes, format: format, near: main.deepValue(.dynamicDepthMap("Near")), far: main.deepValue(.dynamicDepthMap("Far")),
                what: "the Dynamic Depth depth map"
            ) { near, far in String(format: "Dynamic Depth depth map (%@, near %.4g, far %.4g %@)", format, near, far, units.lowercased()) })
        } catch {
            found.problems.append("\(error)")
        }
        if let confidence = main.deepValue(.dynamicDepthMap("ConfidenceURI")), let bytes = byURI[confidence],
            let image = try? EmbeddedImage.grey(bytes, what: "the Dynamic Depth confidence map")
        {
            found.images.append((PhoneDepth.depthConfidence, image, AuxiliaryImageInfo(source: "Dynamic Depth confidence map")))
        }
    }

    // MARK: Writing

    /// `primary` (a JPEG, nothing after its end) as a Dynamic Depth photo: its XMP
    /// (`xmp`, the photo's own, kept) gains the Device description, and the depth
    /// map (RangeInverse, 16-bit PNG) and `mattes` (8-bit PNGs) are appended as items.
    /// `disparity` is larger-is-nearer; its representation, when it has one, gives Near
    /// and Far in metres, else Near 1 and Far 2 in no unit (a relative map).
    package static func write(primary: Data, xmp: Data?, disparity: PixelImage, representation: DepthRepresentation?,
                              mattes: [(ImageRole, PixelImage)]) throws -> Data {
        let (depthItem, near, far, units) = try depthPNG(disparity, representation)
        var items: [(uri: String, mime: String, bytes: Data)] = [(depthURI, "image/png", depthItem)]
        for (role, matte) in mattes {
            items.append((mattePrefix + role.rawValue, "image/png", try ImageEncoder.encode(matte.converted(channels: 1, eightBit: true), as: "png", quality: 0, iccProfile: nil, xmp: nil)))
        }
        var packet = xmp.flatMap { try? XMPPacket($0) } ?? XMPPacket(toolkit: "Mattebox")
        // A Dynamic Depth input's own device goes: this file's items are described anew.
        packet.removeProperties(in: XMPNamespace.dynamicDepthDevice)
        let device = try XMPPacket(Data(description(items: items.map { ($0.uri, $0.mime, $0.bytes.count) }, near: near, far: far, units: units).utf8))
        packet.appendDescriptions(of: device)
        var file = try ExifEmbedding.embed(xmp: packet.data, inJPEG: primary)
        for item in items { file.append(item.bytes) }
        return file
    }

    /// The disparity as RangeInverse depth: 0 at Near, 65535 at Far, linear in 1/depth.
    private static func depthPNG(_ disparity: PixelImage, _ representation: DepthRepresentation?) throws -> (Data, Double, Double, String) {
        guard let (low, high) = disparity.finiteRange().map({ ($0.lowerBound, $0.upperBound) }), high > low else {
            throw MatteboxError("the disparity is flat: Dynamic Depth cannot describe it")
        }
        // As in HEIF (StorablePixels): float values are 1/m; 8- and 16-bit ones map onto the
        // representation's range, when it has one.
        let scale: Double = disparity.format == .uint8 ? 255 : 65535
        var toDisparity: (Double) -> Double = { $0 }
        var units = "None"
        var near = 1.0, far = 2.0
        if disparity.format == .float32, low > 0 {
            near = 1 / high
            far = 1 / low
            units = "Meters"
        } else if disparity.format != .float32, let range = representation?.valueRange, representation?.kind == .uniformDisparity, range.lowerBound > 0 {
            toDisparity = { range.lowerBound + $0 / scale * (range.upperBound - range.lowerBound) }
            near = 1 / toDisparity(high)
            far = 1 / toDisparity(low)
            units = "Meters"
        } else {
            // A relative map: its own range spread over 1/Near ... 1/Far.
            toDisparity = { v in 0.5 + 0.5 * (v - low) / (high - low) }
        }
        let nearest = 1 / near, farthest = 1 / far
        let out = PixelImage(width: disparity.width, height: disparity.height, channels: 1, format: .uint16)
        let p = out.data.assumingMemoryBound(to: UInt16.self)
        for y in 0..<disparity.height {
            for x in 0..<disparity.width {
                let d = toDisparity(disparity.sample(x: x, y: y))
                let normalised = (nearest - d) / (nearest - farthest)
                p[y * disparity.width + x] = UInt16((min(max(normalised, 0), 1) * 65535).rounded())
            }
        }
        let png = try ImageEncoder.encode(out, as: "png", quality: 0, iccProfile: nil, xmp: nil)
        return (png, near, far, units)
    }

    /// The Device description: a depth photo profile, one camera with its image and depth map,
    /// and the container directory (the primary, then each item).
    private static func description(items: [(uri: String, mime: String, length: Int)], near: Double, far: Double, units: String) -> String {
        func ns(_ name: String) -> String { "xmlns:\(name)=\"http://ns.google.com/photos/dd/1.0/\(name.lowercased())/\"" }
        let entries = ([("", "image/jpeg", 0)] + items).map { item in
            "<rdf:li rdf:parseType=\"Resource\"><Container:Item Item:Mime=\"\(item.1)\" Item:Length=\"\(item.2)\""
                + (item.0.isEmpty ? "" : " Item:DataURI=\"\(item.0)\"") + "/></rdf:li>"
        }.joined()
        return """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" \(ns("Device")) \(ns("Container")) \(ns("Item")) \(ns("Camera")) \(ns("DepthMap")) \(ns("Image")) \(ns("Profile"))>\
            <Device:Profiles><rdf:Seq><rdf:li rdf:parseType="Resource"><Profile:Type>DepthPhoto</Profile:Type>\
            <Profile:CameraIndices><rdf:Seq><rdf:li>0</rdf:li></rdf:Seq></Profile:CameraIndices></rdf:li></rdf:Seq></Device:Profiles>\
            <Device:Cameras><rdf:Seq><rdf:li rdf:parseType="Resource"><Device:Camera rdf:parseType="Resource">\
            <Camera:Trait>Physical</Camera:Trait>\
            <Camera:Image rdf:parseType="Resource"><Image:ItemSemantic>Primary</Image:ItemSemantic></Camera:Image>\
            <Camera:DepthMap rdf:parseType="Resource"><DepthMap:ItemSemantic>Depth</DepthMap:ItemSemantic>\
            <DepthMap:Format>RangeInverse</DepthMap:Format><DepthMap:Near>\(near)</DepthMap:Near><DepthMap:Far>\(far)</DepthMap:Far>\
            <DepthMap:Units>\(units)</DepthMap:Units><DepthMap:MeasureType>OpticalAxis</DepthMap:MeasureType>\
            <DepthMap:DepthURI>\(depthURI)</DepthMap:DepthURI><DepthMap:Software>Mattebox</DepthMap:Software></Camera:DepthMap>\
            </Device:Camera></rdf:li></rdf:Seq></Device:Cameras>\
            <Device:Container rdf:parseType="Resource"><Container:Directory><rdf:Seq>\(entries)</rdf:Seq></Container:Directory></Device:Container>\
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """
    }
}
