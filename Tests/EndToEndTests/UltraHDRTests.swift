import Foundation
import MatteboxCore
import MatteboxImageIO
import MatteboxMetadata
import MatteboxTestSupport
import Testing

/// An iPhone HDR photo written as JPEG is an Ultra HDR JPEG that exiftool reads as one (MPF's two
/// images, hdrgm in the primary and the gain map), and its HDR rendition stays that of the
/// original through HEIC -> Ultra HDR JPEG -> HEIC -> AVIF. Renditions are computed here from the
/// formats' published formulas (Apple's "Applying Apple HDR effect to your photos", the Ultra HDR
/// and ISO 21496-1 gain map application), with the metadata exiftool reads, at full headroom, in
/// linear light; they are compared as 32-px block means, which leaves out the codecs' own noise
/// and keeps the gain map's work.
@Suite(.enabled(if: TestEnvironment.shared != nil, "../shared/heic-samples is missing"))
struct UltraHDRTests {
    let folder: URL
    init() throws { folder = try TestEnvironment.scratchDirectory("ultra-hdr") }

    static let sample = "pillow_heif__pug.heic"

    func process(_ input: String, _ options: [String], into name: String) throws -> (path: String, run: TestEnvironment.CommandResult) {
        let out = folder.appendingPathComponent(name).path
        let run = TestEnvironment.run([TestEnvironment.mattebox, "process", input, "-o", out, "--json"] + options, timeout: 600)
        let written = try #require(try FileManager.default.contentsOfDirectory(atPath: out).first { !$0.hasPrefix(".") }, "\(run.errors)")
        return ((out as NSString).appendingPathComponent(written), run)
    }

    /// exiftool's tags of `path` (`-G1`, group:name), as JSON.
    func tags(_ path: String) throws -> [String: Any] {
        let listing = TestEnvironment.run(["exiftool", "-j", "-a", "-G1", "-n", path], timeout: 60)
        let array = try #require(try JSONSerialization.jsonObject(with: Data(listing.output.utf8)) as? [[String: Any]], "\(listing.errors)")
        return try #require(array.first)
    }

    /// The HDR rendition of an Apple-form photo (the gain map in the file, the headroom its maker note states).
    func appleRendition(_ path: String) throws -> [Double] {
        let photo = try ImageDecoder.decodePhoto(at: URL(fileURLWithPath: path))
        let gain = try #require(photo.auxiliary["com.apple.hdrgainmap"], "no gain map in \(path)")
        let stops = try #require(photo.metadata.exif?.appleHDRHeadroom?.stops, "no headroom in \(path)")
        let headroom = pow(2, stops)
        return Self.rendition(photo.primary, gain) { sample in
            let v = sample / 255
            let linear = v < 0.081 ? v / 4.5 : pow((v + 0.099) / 1.099, 1 / 0.45)
            return 1 + (headroom - 1) * linear
        }
    }

    /// Linear-light rendition of `primary` (sRGB-encoded, 8-bit RGB) brightened by `boost` of the
    /// gain map's sample at the same place; every 4th pixel, summed over 32-px blocks.
    static func rendition(_ primary: PixelImage, _ gain: PixelImage?, boost: (Double) -> Double) -> [Double] {
        let srgb = (0..<256).map { i -> Double in
            let v = Double(i) / 255
            return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        }
        let boosts = (0..<256).map { boost(Double($0)) }
        let block = 32, columns = primary.width / block, rows = primary.height / block
        var sums = [Double](repeating: 0, count: columns * rows * 3)
        let pixels = primary.data.assumingMemoryBound(to: UInt8.self)
        let map = gain.map { ($0, $0.data.assumingMemoryBound(to: UInt8.self)) }
        for y in stride(from: 0, to: rows * block, by: 4) {
            for x in stride(from: 0, to: columns * block, by: 4) {
                var factor = 1.0
                if let (image, samples) = map {
                    let gx = min(x * image.width / primary.width, image.width - 1), gy = min(y * image.height / primary.height, image.height - 1)
                    factor = boosts[Int(samples[(gy * image.width + gx) * image.channels])]
                }
                let at = (y * primary.width + x) * primary.channels, cell = ((y / block) * columns + x / block) * 3
                for c in 0..<3 { sums[cell + c] += srgb[Int(pixels[at + c])] * factor }
            }
        }
        return sums
    }

    /// Mean absolute difference over the mean: 0.01 is 1%.
    static func error(_ a: [Double], _ b: [Double]) -> Double {
        zip(a, b).reduce(0) { $0 + abs($1.0 - $1.1) } / a.reduce(0) { $0 + abs($1) }
    }

    @Test func anIPhoneHDRPhotoStaysHDRThroughUltraHDRJPEGAndBack() throws {
        let input = TestEnvironment.shared!.appendingPathComponent("heic-samples/\(Self.sample)").path
        let original = try appleRendition(input)
        let sdr = Self.rendition(try ImageDecoder.decodePhoto(at: URL(fileURLWithPath: input)).primary, nil) { _ in 1 }
        #expect(Self.error(original, sdr) > 0.05, "the sample's gain map brightens too little for this test to tell")

        // HEIC -> Ultra HDR JPEG: exiftool sees MPF's two images and hdrgm in both.
        let (jpeg, toJPEG) = try process(input, ["--format", "jpeg"], into: "jpeg")
        #expect(toJPEG.status == 0 && toJPEG.output.contains("written as Ultra HDR"), "\(toJPEG.output)\(toJPEG.errors)")
        let primaryTags = try tags(jpeg)
        #expect(primaryTags["MPF0:NumberOfImages"] as? Int == 2, "\(primaryTags.filter { $0.key.hasPrefix("MP") })")
        #expect(primaryTags["XMP-hdrgm:Version"] != nil, "no hdrgm:Version in the primary")
        let gainPath = folder.appendingPathComponent("gain.jpg").path
        let extract = TestEnvironment.run(["sh", "-c", "exiftool -b -MPImage2 \"$0\" > \"$1\"", jpeg, gainPath], timeout: 60)
        #expect(extract.status == 0, "\(extract.errors)")
        let gainTags = try tags(gainPath)
        let mapMax = try #require(gainTags["XMP-hdrgm:GainMapMax"] as? Double, "\(gainTags)")
        let mapMin = gainTags["XMP-hdrgm:GainMapMin"] as? Double ?? 0, gamma = gainTags["XMP-hdrgm:Gamma"] as? Double ?? 1
        let offsetSDR = gainTags["XMP-hdrgm:OffsetSDR"] as? Double ?? 1.0 / 64, offsetHDR = gainTags["XMP-hdrgm:OffsetHDR"] as? Double ?? 1.0 / 64
        #expect(abs(mapMax - 1.8) < 0.01, "the pug's maker note says 1.8 stops: \(mapMax)")
        #expect(gainTags["XMP-hdrgm:HDRCapacityMax"] as? Double == mapMax)

        // The Ultra HDR rendition: (sdr + offset) x 2^(log boost) - offset; offsets are tiny, so applied as a factor.
        let ultraPrimary = try ImageDecoder.decodePhoto(at: URL(fileURLWithPath: jpeg)).primary
        let ultraMap = try ImageDecoder.decodeAuxiliaryImage(at: URL(fileURLWithPath: gainPath))
        #expect(offsetSDR == offsetHDR, "the check below applies equal offsets as a factor")
        let ultra = Self.rendition(ultraPrimary, ultraMap) { sample in pow(2, mapMin + (mapMax - mapMin) * pow(sample / 255, 1 / gamma)) }
        let jpegError = Self.error(original, ultra)
        #expect(jpegError < 0.02, "Ultra HDR JPEG's rendition is \(jpegError * 100)% off the HEIC's")

        // Ultra HDR JPEG -> HEIC -> AVIF: Apple's form again, the headroom in the carried maker note.
        let (heic, toHEIC) = try process(jpeg, ["--format", "heic"], into: "heic")
        #expect(toHEIC.status == 0, "\(toHEIC.errors)")
        let heicError = Self.error(original, try appleRendition(heic))
        #expect(heicError < 0.02, "HEIC from the Ultra HDR JPEG: \(heicError * 100)% off")
        let (avif, toAVIF) = try process(heic, ["--format", "avif"], into: "avif")
        #expect(toAVIF.status == 0, "\(toAVIF.errors)")
        let avifError = Self.error(original, try appleRendition(avif))
        #expect(avifError < 0.02, "AVIF after the round trip: \(avifError * 100)% off")
        // AVIF readers find the gain map through an ISO 21496-1 tone map, made for it here.
        let avifListing = TestEnvironment.run([TestEnvironment.mattebox, "inspect", avif], timeout: 120).output
        #expect(avifListing.contains("tone map: ISO 21496-1") && avifListing.contains("gain map log2 0...1.8"), "\(avifListing)")
        for path in [heic, avif] {
            let opened = TestEnvironment.run(["heif-info", path], timeout: 60)
            #expect(opened.status == 0, "libheif does not open \(path): \(opened.errors)")
        }
    }

    /// The gain map's headroom shows in `inspect`; `--hdr drop` on an Ultra HDR JPEG leaves neither
    /// the gain map after its primary nor the XMP that claimed it, and keeps the primary's bytes.
    @Test func inspectShowsTheHeadroomAndDropLeavesAnSDRJPEG() throws {
        let input = TestEnvironment.shared!.appendingPathComponent("heic-samples/\(Self.sample)").path
        let (jpeg, _) = try process(input, ["--format", "jpeg", "--hdr", "keep"], into: "keep")
        let listing = TestEnvironment.run([TestEnvironment.mattebox, "inspect", jpeg], timeout: 120).output
        #expect(listing.contains("Ultra HDR gain map (MPF image 2)") && listing.contains("headroom: 3.48x SDR white"), "\(listing)")

        let (dropped, run) = try process(jpeg, ["--format", "jpeg", "--hdr", "drop"], into: "drop")
        #expect(run.status == 0 && run.output.contains("left out, as --hdr drop asked"), "\(run.output)")
        let droppedTags = try tags(dropped)
        #expect(droppedTags["MPF0:NumberOfImages"] == nil && droppedTags["XMP-hdrgm:Version"] == nil, "\(droppedTags.filter { $0.key.contains("MP") || $0.key.contains("hdrgm") })")
        let before = try ImageDecoder.decodePhoto(at: URL(fileURLWithPath: jpeg)).primary
        let after = try ImageDecoder.decodePhoto(at: URL(fileURLWithPath: dropped)).primary
        #expect(before.hasSamePixels(as: after), "the primary was encoded again")
    }

    /// An Ultra HDR JPEG states its headroom only in its gain map's metadata (no Apple maker note,
    /// as Android's): a render blurs the map, and the JPEG it writes is still Ultra HDR with that
    /// headroom (the render once lost it with the map's old image, and the gain map with it).
    @Test func aRenderOfAnUltraHDRJPEGWithoutAMakerNoteStaysHDR() throws {
        let input = TestEnvironment.shared!.appendingPathComponent("heic-samples/\(Self.sample)").path
        let (jpeg, _) = try process(input, ["--format", "jpeg"], into: "android-like")
        let strip = TestEnvironment.run(["exiftool", "-q", "-overwrite_original", "-MakerNotes:all=", jpeg], timeout: 60)
        #expect(strip.status == 0, "\(strip.errors)")
        let out = folder.appendingPathComponent("android-render").path
        let run = TestEnvironment.run([TestEnvironment.mattebox, "render", jpeg, "-o", out, "--aperture", "2.8", "--format", "jpeg"], timeout: 600)
        #expect(run.status == 0 && run.output.contains("written as Ultra HDR") && run.output.contains("(1.80 stops)"), "\(run.output)\(run.errors)")
        let rendered = try ImageDecoder.decodePhoto(at: URL(fileURLWithPath: out).appendingPathComponent((jpeg as NSString).lastPathComponent))
        #expect(rendered.metadata.exif?.appleHDRHeadroom == nil, "the maker note was not stripped")
        #expect(rendered.gainMapHeadroomStops.map { abs($0 - 1.8) < 0.01 } == true, "\(String(describing: rendered.gainMapHeadroomStops))")
    }

    /// The app's viewer shows an HDR photo as Ultra HDR (Chrome shows it as HDR on an HDR screen):
    /// its picture carries the gain map, turned and scaled with it, and the headroom.
    @Test func theAppsViewerPictureIsUltraHDR() throws {
        let input = TestEnvironment.shared!.appendingPathComponent("heic-samples/\(Self.sample)")
        let metadata = try Self.viewerGainMap(of: input, named: "pug.heic")
        #expect(abs(metadata.alternateHeadroom - 1.8) < 0.01, "\(metadata)")
    }

    /// The viewer's picture of `photo` (served from a library holding it as `name`): an Ultra HDR
    /// JPEG 1024 px on its long side with a gain map half its size; that map's metadata.
    static func viewerGainMap(of photo: URL, named name: String) throws -> GainMapMetadata {
        let app = try ServedApp { library in try FileManager.default.copyItem(at: photo, to: library.appendingPathComponent(name)) }
        let reply = try app.send("GET", "/api/library/\(name)/overlay/primary", token: true)
        #expect(reply.status == 200)
        let jpeg = [UInt8](reply.body)
        let index = try #require(try MPFIndex.read(from: jpeg), "no MPF index in the viewer's picture")
        #expect(index.entries.count == 2)
        let gain = Array(jpeg[index.entries[1].fileOffset..<(index.entries[1].fileOffset + index.entries[1].size)])
        let picture = try EmbeddedJPEGSize.of(jpeg), map = try EmbeddedJPEGSize.of(gain)
        #expect(max(picture.width, picture.height) == 1024 && map.width * 2 == picture.width, "\(picture) \(map)")
        return try UltraHDRJPEG.metadata(of: gain, what: "the viewer's gain map")
    }
}

/// A JPEG's size from its SOF marker, read here so the check does not lean on the code it checks.
enum EmbeddedJPEGSize {
    struct Failure: Error {}
    static func of(_ jpeg: [UInt8]) throws -> (width: Int, height: Int) {
        var at = 2
        while at + 9 < jpeg.count, jpeg[at] == 0xFF {
            let marker = jpeg[at + 1], length = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
            if (0xC0...0xC3).contains(marker) {
                return (Int(jpeg[at + 7]) << 8 | Int(jpeg[at + 8]), Int(jpeg[at + 5]) << 8 | Int(jpeg[at + 6]))
            }
            at += 2 + length
        }
        throw Failure()
    }
}
