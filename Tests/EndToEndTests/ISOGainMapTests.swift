import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxMetadata
import MatteboxTestSupport
import Testing

/// A gain map Apple's form cannot say (one map per colour channel that also darkens, as Adobe's
/// and libultrahdr's multichannel maps may) is kept as it is: read from an Ultra HDR JPEG, written
/// to HEIC and AVIF as an ISO 21496-1 tone map over a hidden gain map item, and to JPEG as Ultra HDR
/// again, its HDR rendition (computed here from ISO 21496-1's formula, per channel, at full
/// headroom, in linear light) within 2% of the original's; a render blurs it per channel.
/// The input is made here from the pug's iPhone photo: its primary, and a three-channel map made
/// from its gain map, in an Ultra HDR JPEG whose structure exiftool confirms.
@Suite(.enabled(if: TestEnvironment.shared != nil, "../shared/heic-samples is missing"))
struct ISOGainMapTests {
    let folder: URL
    init() throws { folder = try TestEnvironment.scratchDirectory("iso-gain-map") }

    /// Per channel: log2 of the boost at samples 0 and 255 (red and green also darken).
    static let metadata = GainMapMetadata(
        isMultichannel: true, baseHeadroom: 0, alternateHeadroom: 1.8,
        channels: [(-0.5, 1.8), (-1.0, 1.0), (0, 1.4)].map {
            GainMapMetadata.Channel(gainMapMin: $0.0, gainMapMax: $0.1, gamma: 1, baseOffset: 1.0 / 64, alternateOffset: 1.0 / 64)
        })

    /// The Ultra HDR JPEG with a three-channel map, and that map.
    func makeInput() throws -> (path: String, map: PixelImage) {
        let pug = TestEnvironment.shared!.appendingPathComponent("heic-samples/pillow_heif__pug.heic")
        let photo = try ImageDecoder.decodePhoto(at: pug)
        let grey = try #require(photo.auxiliary[.appleHDRGainMap])
        let map = PixelImage(width: grey.width, height: grey.height, channels: 3, format: .uint8)
        let source = grey.data.assumingMemoryBound(to: UInt8.self), target = map.data.assumingMemoryBound(to: UInt8.self)
        for i in 0..<(grey.width * grey.height) {
            let v = source[i]
            (target[i * 3], target[i * 3 + 1], target[i * 3 + 2]) = (v, 255 - v, v / 2 + 64)
        }
        let gainMap = try UltraHDRJPEG.gainMapJPEG(iso: map, metadata: Self.metadata, quality: 95)
        let xmp = try UltraHDRJPEG.primaryXMP(nil, gainMapLength: gainMap.count)
        let primary = try ImageEncoder.encode(photo.primary, as: .jpeg, quality: 92, iccProfile: nil, xmp: xmp)
        let bytes = try UltraHDRJPEG.assemble([UInt8](primary), gainMap: gainMap)
        let path = folder.appendingPathComponent("pug-rgb-gain.jpg").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, map)
    }

    func process(_ input: String, _ command: String, _ options: [String], into name: String) throws -> (path: String, run: TestEnvironment.CommandResult) {
        let out = folder.appendingPathComponent(name).path
        let run = TestEnvironment.run([TestEnvironment.mattebox, command, input, "-o", out] + options, timeout: 600)
        let written = try #require(try FileManager.default.contentsOfDirectory(atPath: out).first { !$0.hasPrefix(".") }, "\(run.errors)")
        return ((out as NSString).appendingPathComponent(written), run)
    }

    /// The ISO 21496-1 rendition of a photo's primary and three-channel map at full headroom:
    /// (sdr + baseOffset) x 2^boost - alternateOffset per channel, every 4th pixel summed over 32-px blocks.
    static func rendition(_ primary: PixelImage, _ map: PixelImage, _ metadata: GainMapMetadata) -> [Double] {
        let srgb = (0..<256).map { i -> Double in
            let v = Double(i) / 255
            return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        }
        let boosts = metadata.channels.map { channel in
            (0..<256).map { pow(2, channel.gainMapMin + (channel.gainMapMax - channel.gainMapMin) * pow(Double($0) / 255, 1 / channel.gamma)) }
        }
        let block = 32, columns = primary.width / block, rows = primary.height / block
        var sums = [Double](repeating: 0, count: columns * rows * 3)
        let pixels = primary.data.assumingMemoryBound(to: UInt8.self), samples = map.data.assumingMemoryBound(to: UInt8.self)
        for y in stride(from: 0, to: rows * block, by: 4) {
            for x in stride(from: 0, to: columns * block, by: 4) {
                let gx = min(x * map.width / primary.width, map.width - 1), gy = min(y * map.height / primary.height, map.height - 1)
                let at = (y * primary.width + x) * primary.channels, cell = ((y / block) * columns + x / block) * 3
                for c in 0..<3 {
                    let channel = metadata.channels[c], boost = boosts[c][Int(samples[(gy * map.width + gx) * map.channels + c])]
                    sums[cell + c] += (srgb[Int(pixels[at + c])] + channel.baseOffset) * boost - channel.alternateOffset
                }
            }
        }
        return sums
    }

    /// The photo at `path`'s rendition from its own ISO gain map and metadata.
    func rendition(_ path: String) throws -> [Double] {
        let photo = try ImageDecoder.decodePhoto(at: URL(fileURLWithPath: path))
        let map = try #require(photo.auxiliary[.isoGainMap], "no ISO gain map in \(path): \(photo.auxiliary.keys.sorted())")
        #expect(map.channels == 3, "\(path): the map has \(map.channels) channels")
        let metadata = try UltraHDRJPEG.isoMetadata(of: photo)
        for (read, made) in zip(metadata.channels, Self.metadata.channels) {
            #expect(abs(read.gainMapMin - made.gainMapMin) < 1e-6 && abs(read.gainMapMax - made.gainMapMax) < 1e-6, "\(path): \(metadata)")
        }
        return Self.rendition(photo.primary, map, metadata)
    }

    static func error(_ a: [Double], _ b: [Double]) -> Double {
        zip(a, b).reduce(0) { $0 + abs($1.0 - $1.1) } / a.reduce(0) { $0 + abs($1) }
    }

    @Test func aPerChannelMapThatDarkensIsKeptThroughHEICAVIFAndJPEG() throws {
        let (input, map) = try makeInput()
        let tags = TestEnvironment.run(["exiftool", "-s", "-a", "-G1", "-MPF:NumberOfImages", "-XMP-hdrgm:Version", input], timeout: 60).output
        #expect(tags.contains("NumberOfImages") && tags.contains(": 2") && tags.contains("Version"), "the input is not an Ultra HDR JPEG: \(tags)")
        let original = try rendition(input)
        let primary = try ImageDecoder.decodePhoto(at: URL(fileURLWithPath: input)).primary
        let flat = PixelImage(width: map.width, height: map.height, channels: 3, format: .uint8)
        memset(flat.data, 0, map.width * map.height * 3)
        #expect(Self.error(original, Self.rendition(primary, flat, Self.metadata)) > 0.05, "the map changes too little for this test to tell")

        let listing = TestEnvironment.run([TestEnvironment.mattebox, "inspect", input], timeout: 120).output
        #expect(listing.contains("org.iso.gainmap") && listing.contains("one map per colour channel, 0.50x to 3.48x"), "\(listing)")

        // JPEG to JPEG with nothing changed: the input's own bytes, its gain map with them.
        let (same, toSame) = try process(input, "process", ["--format", "jpeg"], into: "same")
        let sameBytes = try Data(contentsOf: URL(fileURLWithPath: same)) == Data(contentsOf: URL(fileURLWithPath: input))
        #expect(toSame.status == 0 && sameBytes, "an unchanged Ultra HDR JPEG was written anew: \(toSame.output)")

        let (heic, toHEIC) = try process(input, "process", ["--format", "heic"], into: "heic")
        #expect(toHEIC.status == 0 && !toHEIC.output.contains("gain map not kept") && !toHEIC.output.contains("ISO 21496-1 gain map ("),
                "\(toHEIC.output)\(toHEIC.errors)")
        let heicListing = TestEnvironment.run([TestEnvironment.mattebox, "inspect", heic], timeout: 120).output
        #expect(heicListing.contains("tone map: ISO 21496-1") && heicListing.contains("per channel"), "\(heicListing)")
        let heicXMP = TestEnvironment.run(["exiftool", "-s", "-a", "-G1", "-XMP-hdrgm:all", "-XMP-Container:all", heic], timeout: 60).output
        #expect(heicXMP.isEmpty, "the HEIC's XMP still claims the JPEG's gain map item: \(heicXMP)")
        // HEIC to HEIC: the gain map item and its tone map are copied as they are, nothing named as lost.
        let (again, rerun) = try process(heic, "process", ["--format", "heic"], into: "heic-again")
        #expect(rerun.status == 0 && !rerun.output.contains("not kept"), "\(rerun.output)\(rerun.errors)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: again)) == Data(contentsOf: URL(fileURLWithPath: heic)), "an unchanged HEIC was not its own bytes")
        let (avif, toAVIF) = try process(heic, "process", ["--format", "avif"], into: "avif")
        #expect(toAVIF.status == 0 && !toAVIF.output.contains("'tmap' derived image"), "the tone map was named as lost: \(toAVIF.output)\(toAVIF.errors)")
        let (jpeg, toJPEG) = try process(avif, "process", ["--format", "jpeg"], into: "jpeg")
        #expect(toJPEG.status == 0 && toJPEG.output.contains("written as Ultra HDR"), "\(toJPEG.output)\(toJPEG.errors)")
        // The AVIF's tone map item is not an item of a JPEG, but what it describes goes on as the Ultra HDR gain map.
        #expect(toJPEG.output.contains("(the HDR rendition it describes goes on as the Ultra HDR gain map)"), "\(toJPEG.output)")
        for path in [heic, avif, jpeg] {
            let error = Self.error(original, try rendition(path))
            #expect(error < 0.02, "\(path): its HDR rendition is \(error * 100)% off the input's")
            print("ISO gain map round trip: \((path as NSString).lastPathComponent) \(String(format: "%.3f", error * 100))% off the input's HDR rendition")
        }
        for path in [heic, avif] {
            #expect(TestEnvironment.run(["heif-info", path], timeout: 60).status == 0, "libheif does not open \(path)")
        }
        let jpegTags = TestEnvironment.run(["exiftool", "-s", "-a", "-MPF:NumberOfImages", jpeg], timeout: 60).output
        #expect(jpegTags.contains(": 2"), "\(jpegTags)")
    }

    /// The gain map image's hdrgm XMP states each channel's mapping (an `rdf:Seq` of three), so a
    /// reader of the XMP alone applies the same map: exiftool reads the three values.
    @Test func theGainMapsXMPStatesEachChannel() throws {
        let (input, _) = try makeInput()
        let gainMap = folder.appendingPathComponent("gain-map-image.jpg").path
        let extract = TestEnvironment.run(["sh", "-c", "exiftool -b -MPImage2 \"$0\" > \"$1\"", input, gainMap], timeout: 60)
        #expect(extract.status == 0, "\(extract.errors)")
        let tags = TestEnvironment.run(["exiftool", "-s", "-XMP-hdrgm:GainMapMin", "-XMP-hdrgm:GainMapMax", "-XMP-hdrgm:HDRCapacityMax", gainMap], timeout: 60).output
        #expect(tags.contains("GainMapMin") && tags.contains("-0.5, -1, 0"), "\(tags)")
        #expect(tags.contains("GainMapMax") && tags.contains("1.8, 1, 1.4"), "\(tags)")
    }

    /// An Ultra HDR JPEG whose base is the HDR picture, stated in hdrgm XMP alone (Adobe's
    /// `BaseRenditionIsHDR`): made from the pug's primary and grey map, its mapping from HDR down
    /// to SDR. Returns the file and the map's samples as its JPEG decodes.
    func makeHDRBaseInput() throws -> (path: String, map: PixelImage) {
        let pug = TestEnvironment.shared!.appendingPathComponent("heic-samples/pillow_heif__pug.heic")
        let photo = try ImageDecoder.decodePhoto(at: pug)
        let grey = try #require(photo.auxiliary[.appleHDRGainMap])
        let xmp = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description rdf:about="" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0" \
            hdrgm:BaseRenditionIsHDR="True" hdrgm:GainMapMin="0" hdrgm:GainMapMax="1.8" hdrgm:Gamma="1" \
            hdrgm:OffsetSDR="0.015625" hdrgm:OffsetHDR="0.015625" hdrgm:HDRCapacityMin="0" hdrgm:HDRCapacityMax="1.8"/>\
            </rdf:RDF></x:xmpmeta>
            """
        let gainMap = [UInt8](try ImageEncoder.encode(grey, as: .jpeg, quality: 95, iccProfile: nil, xmp: Data(xmp.utf8)))
        let mapFile = folder.appendingPathComponent("hdr-base-map.jpg")
        try Data(gainMap).write(to: mapFile)
        let decodedMap = try ImageDecoder.decodePhoto(at: mapFile).primary.converted(channels: 1, eightBit: true)
        let primaryXMP = try UltraHDRJPEG.primaryXMP(nil, gainMapLength: gainMap.count)
        let primary = try ImageEncoder.encode(photo.primary, as: .jpeg, quality: 92, iccProfile: nil, xmp: primaryXMP)
        let path = folder.appendingPathComponent("pug-hdr-base.jpg").path
        try Data(try UltraHDRJPEG.assemble([UInt8](primary), gainMap: gainMap)).write(to: URL(fileURLWithPath: path))
        return (path, decodedMap)
    }

    /// The SDR rendition of an HDR base, every 8th pixel: as hdrgm states it (Skia's formula for
    /// an HDR base, `(base + offsetHDR) x 2^-L - offsetSDR`, from the samples as stored), or as the
    /// photo read back says it in ISO 21496-1's form (its own map and metadata).
    static func sdrRendition(_ primary: PixelImage, _ map: PixelImage, log2Boost: (UInt8) -> Double, offsets: (base: Double, alternate: Double)) -> [Double] {
        let linear = (0..<256).map { i -> Double in
            let v = Double(i) / 255
            return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        }
        let pixels = primary.data.assumingMemoryBound(to: UInt8.self), samples = map.data.assumingMemoryBound(to: UInt8.self)
        var out: [Double] = []
        for y in stride(from: 0, to: primary.height, by: 8) {
            for x in stride(from: 0, to: primary.width, by: 8) {
                let sample = samples[min(y * map.height / primary.height, map.height - 1) * map.width + min(x * map.width / primary.width, map.width - 1)]
                out.append((linear[Int(pixels[(y * primary.width + x) * primary.channels + 1])] + offsets.base) * pow(2, log2Boost(sample)) - offsets.alternate)
            }
        }
        return out
    }

    @Test func anHDRBaseStatedInHdrgmAloneIsReadAndKept() throws {
        let (input, storedMap) = try makeHDRBaseInput()
        let photo = try ImageDecoder.decodePhoto(at: URL(fileURLWithPath: input))
        #expect(photo.auxiliary[.isoGainMap] != nil, "the HDR base's map was not read: \(photo.metadata.notes)")
        let metadata = try UltraHDRJPEG.isoMetadata(of: photo)
        #expect(metadata.baseHeadroom == 1.8 && metadata.alternateHeadroom == 0, "\(metadata)")
        let stated = Self.sdrRendition(photo.primary, storedMap, log2Boost: { -1.8 * Double($0) / 255 }, offsets: (1.0 / 64, 1.0 / 64))
        func kept(_ photo: Photo) throws -> [Double] {
            let map = try #require(photo.auxiliary[.isoGainMap]), channel = try UltraHDRJPEG.isoMetadata(of: photo).channels[0]
            return Self.sdrRendition(photo.primary, map.converted(channels: 1, eightBit: true), log2Boost: {
                channel.gainMapMin + (channel.gainMapMax - channel.gainMapMin) * pow(Double($0) / 255, 1 / channel.gamma)
            }, offsets: (channel.baseOffset, channel.alternateOffset))
        }
        let read = Self.error(stated, try kept(photo))
        #expect(read < 1e-9, "read: the SDR rendition is \(read * 100)% off what hdrgm states")

        let listing = TestEnvironment.run([TestEnvironment.mattebox, "inspect", input], timeout: 120).output
        #expect(listing.contains("the base is HDR, 1.80 stops"), "\(listing)")
        let (heic, toHEIC) = try process(input, "process", ["--format", "heic"], into: "hdr-base-heic")
        #expect(toHEIC.status == 0, "\(toHEIC.output)\(toHEIC.errors)")
        let (jpeg, toJPEG) = try process(heic, "process", ["--format", "jpeg"], into: "hdr-base-jpeg")
        #expect(toJPEG.status == 0, "\(toJPEG.output)\(toJPEG.errors)")
        for path in [heic, jpeg] {
            let error = Self.error(stated, try kept(try ImageDecoder.decodePhoto(at: URL(fileURLWithPath: path))))
            #expect(error < 0.02, "\(path): its SDR rendition is \(error * 100)% off the input's")
        }
        // The JPEG's gain map states its mapping in ISO 21496-1's APP2 alone: hdrgm would need the samples turned.
        let gainMap = folder.appendingPathComponent("hdr-base-out-map.jpg").path
        _ = TestEnvironment.run(["sh", "-c", "exiftool -b -MPImage2 \"$0\" > \"$1\"", jpeg, gainMap], timeout: 60)
        let tags = TestEnvironment.run(["exiftool", "-s", "-XMP-hdrgm:all", gainMap], timeout: 60).output
        let mapBytes = try Data(contentsOf: URL(fileURLWithPath: gainMap)).count
        #expect(tags.isEmpty && mapBytes > 1000, "\(tags) (\(mapBytes) bytes)")
    }

    @Test func aRenderBlursThePerChannelMapAsThePrimary() throws {
        let (input, map) = try makeInput()
        let (rendered, run) = try process(input, "render", ["--aperture", "2.8", "--focus", "0.5,0.5", "--format", "heic"], into: "render")
        #expect(run.status == 0 && run.output.contains("one per colour channel"), "\(run.output)\(run.errors)")
        let photo = try ImageDecoder.decodePhoto(at: URL(fileURLWithPath: rendered))
        let blurred = try #require(photo.auxiliary[.isoGainMap], "the render lost the gain map: \(run.output)")
        #expect(blurred.channels == 3 && blurred.width == map.width && blurred.height == map.height)
        #expect(!blurred.hasSamePixels(as: map), "the gain map was not rendered")
        #expect(photo.metadata.gainMap.iso21496 != nil)
    }

    /// The app's viewer shows such a photo as Ultra HDR too: its picture carries the map, scaled
    /// with it, in colour, and the same per-channel metadata.
    @Test func theAppsViewerPictureCarriesThePerChannelMap() throws {
        let (input, _) = try makeInput()
        let metadata = try UltraHDRTests.viewerGainMap(of: URL(fileURLWithPath: input), named: "rgb.jpg")
        #expect(metadata.isMultichannel && metadata.channels.map(\.gainMapMin) == Self.metadata.channels.map(\.gainMapMin), "\(metadata)")
    }
}
