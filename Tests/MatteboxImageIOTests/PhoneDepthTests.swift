import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxImageIO
import MatteboxMetadata
import MatteboxRuntime
import MatteboxTestSupport
import Testing

/// The depth and mattes phones store in JPEGs, read into the Photo, kept by
/// JPEG and HEIC outputs, written as Dynamic Depth; damaged ones a note on the
/// photo whose primary is still read. Built files first (a fresh clone has
/// them), then the real phone photos of ../shared/depth-samples.
@Suite struct PhoneDepthTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("phone-depth") }

    private func decode(_ bytes: [UInt8], _ name: String = "photo.jpg") throws -> Photo {
        let url = folder.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return try ImageDecoder.decodePhoto(at: url)
    }

    private func appleJPEG(entries: [PhoneDepthFixtures.Entry]? = nil, claimedImages: Int? = nil) throws -> [UInt8] {
        PhoneDepthFixtures.appleMPF(
            primary: try PhoneDepthFixtures.primary(),
            extras: [
                try PhoneDepthFixtures.gradient(xmp: PhoneDepthFixtures.appleDisparityXMP),
                try PhoneDepthFixtures.gradient(width: 48, height: 32, xmp: PhoneDepthFixtures.appleMatteXMP),
            ],
            entries: entries, claimedImages: claimedImages)
    }

    private func note(_ photo: Photo) -> String { photo.metadata.notes["phoneDepth"] ?? "" }

    // MARK: iPhone JPEG (MPF)

    @Test func anIPhoneJPEGsMPFImagesAreItsDisparityAndMatte() throws {
        let photo = try decode(try appleJPEG())
        let disparity = try #require(photo.auxiliary[.disparity])
        #expect((disparity.width, disparity.height) == (24, 16))
        // Stored as written: the right (larger values) is near.
        #expect(disparity.sample(x: 23, y: 8) > disparity.sample(x: 0, y: 8) + 150)
        let info = try #require(photo.metadata.auxiliaryInfo[.disparity])
        #expect(info.depth?.kind == .uniformDisparity)
        #expect(info.depth?.disparityMinimum == 0.5 && info.depth?.disparityMaximum == 1.5)
        #expect(info.source == "iPhone JPEG disparity (MPF image 2)")
        #expect(photo.auxiliary[.portraitMatte]?.width == 48)
        #expect(photo.metadata.auxiliaryInfo[.portraitMatte]?.source == "iPhone JPEG portrait effects matte (MPF image 3)")
        #expect(note(photo).isEmpty, "\(note(photo))")
    }

    @Test func aJPEGOutputOfAnUnchangedIPhoneJPEGKeepsItsMPFBytes() throws {
        let input = try appleJPEG()
        let photo = try decode(input)
        var notes: [String: String] = [:]
        let output = [UInt8](try ImageEncoder.encode(photo, as: .jpeg, quality: 92, heif: HEIFWriteOptions(), notes: &notes))
        let mpf = { (bytes: [UInt8]) in JPEGSegments.segments(of: bytes).first(where: \.isMPF).map { Array($0.bytes) } }
        #expect(mpf(output) != nil && mpf(output) == mpf(input))
        let tail = { (bytes: [UInt8]) in Array(bytes[(JPEGSegments.endOfImage(in: bytes) ?? 0)...]) }
        #expect(tail(output) == tail(input), "the images after the primary are the input's bytes")
        #expect(notes["auxiliaryImages"] == nil && notes["dynamicDepth"] == nil, "\(notes)")
        // And read back the same.
        let again = try decode(output, "again.jpg")
        #expect(again.auxiliary[.disparity]?.hasSamePixels(as: try #require(photo.auxiliary[.disparity])) == true)
    }

    @Test func aHEICOutputCarriesTheIPhoneJPEGsDisparityAsAppleDoes() throws {
        let photo = try decode(try appleJPEG())
        let url = folder.appendingPathComponent("out.heic")
        try ImageEncoder.encode(photo, as: .heic).write(to: url)
        let summary = try HEIFInspector.inspect(at: url)
        let disparity = try #require(summary.auxiliary.first { $0.role == "disparity" })
        #expect(disparity.type == "urn:mpeg:hevc:2015:auxid:2")
        #expect(disparity.depth?.kind == .uniformDisparity)
        #expect(abs((disparity.depth?.disparityMaximum ?? 0) - 1.5) < 1e-4 && abs((disparity.depth?.disparityMinimum ?? 0) - 0.5) < 1e-4)
        #expect(summary.auxiliary.contains { $0.role == "portraitMatte" && $0.type == "urn:com:apple:photo:2018:aux:portraiteffectsmatte" })
    }

    @Test func aDamagedMPFIndexIsANoteAndThePrimaryIsStillRead() throws {
        let whole = try appleJPEG()
        let cases: [(String, [UInt8], String)] = [
            ("truncated", Array(whole[..<(whole.count - 200)]), "outside the file"),
            ("oversized", try appleJPEG(entries: [.init(size: 0x7FFF_FFFF), .init()]), "outside the file"),
            ("inconsistent offset", try appleJPEG(entries: [.init(offsetShift: -40), .init()]), "not a JPEG where the index says"),
            ("too many images", try appleJPEG(claimedImages: 5000), "images in"),
        ]
        for (name, bytes, expected) in cases {
            let photo = try decode(bytes, "\(name).jpg")
            #expect(note(photo).contains(expected), "\(name): \(note(photo))")
            #expect((photo.primary.width, photo.primary.height) == (PhoneDepthFixtures.width, PhoneDepthFixtures.height), "\(name)")
            // The primary is processed as any other: written again without a crash.
            _ = try ImageEncoder.encode(photo, as: .heic)
        }
    }

    // MARK: Lens Blur (GDepth)

    @Test func lensBlursDepthAndUnblurredPhotoAreReadFromTheExtendedXMP() throws {
        let photo = try decode(try PhoneDepthFixtures.lensBlur())
        let disparity = try #require(photo.auxiliary[.disparity])
        // RangeInverse stores 0 at Near: the stored left (255, far) turns to the smallest disparity.
        #expect(disparity.sample(x: 0, y: 8) < 10 && disparity.sample(x: 23, y: 8) > 245)
        let info = try #require(photo.metadata.auxiliaryInfo[.disparity])
        #expect(abs((info.depth?.disparityMinimum ?? 0) - 0.1) < 1e-9 && abs((info.depth?.disparityMaximum ?? 0) - 1) < 1e-9)
        #expect(info.source?.hasPrefix("Lens Blur depth (GDepth RangeInverse") == true)
        let original = try #require(photo.auxiliary[PhoneDepth.lensBlurOriginal])
        #expect(original.channels == 3 && original.width == PhoneDepthFixtures.width)
        #expect(note(photo).isEmpty, "\(note(photo))")
    }

    @Test func extendedXMPPiecesOutOfOrderAreStillOneWhole() throws {
        let photo = try decode(try PhoneDepthFixtures.lensBlur(pieces: 4) { $0.reversed() })
        #expect(photo.auxiliary[.disparity] != nil && photo.auxiliary[PhoneDepth.lensBlurOriginal] != nil, "\(note(photo))")
    }

    @Test func aMissingOrDuplicatedExtendedXMPPieceIsANote() throws {
        let missing = try decode(try PhoneDepthFixtures.lensBlur(pieces: 4) { Array($0.dropLast(2)) + [$0.last!] }, "missing.jpg")
        #expect(missing.auxiliary[.disparity] == nil)
        #expect(note(missing).contains("misses bytes"), "\(note(missing))")
        let doubled = try decode(try PhoneDepthFixtures.lensBlur(pieces: 3) { $0 + [$0[1]] }, "doubled.jpg")
        #expect(note(doubled).contains("overlap"), "\(note(doubled))")
        #expect(doubled.primary.width == PhoneDepthFixtures.width)
    }

    @Test func aJPEGOutputOfALensBlurPhotoKeepsItsExtendedXMP() throws {
        let input = try PhoneDepthFixtures.lensBlur()
        let photo = try decode(input)
        let output = [UInt8](try ImageEncoder.encode(photo, as: .jpeg))
        let extended = { (bytes: [UInt8]) in
            JPEGSegments.segments(of: bytes).filter { $0.starts(with: ExtendedXMP.header) }.map { Array($0.bytes) }
        }
        #expect(extended(output).count == 3 && extended(output) == extended(input))
    }

    // MARK: Dynamic Depth

    /// A photo with a float disparity (0.2 to 2 across) and a matte, as a HEIC capture has them.
    private func photoWithDepth() -> Photo {
        var photo = Photo(primary: TestImages.pattern(width: 64, height: 48))
        let disparity = PixelImage(width: 32, height: 24, channels: 1, format: .float32)
        for y in 0..<24 {
            for x in 0..<32 { disparity.data.storeBytes(of: Float(0.2 + 1.8 * Double(x) / 31), toByteOffset: (y * 32 + x) * 4, as: Float.self) }
        }
        photo.setAuxiliary(disparity, for: .disparity)
        photo.metadata.auxiliaryInfo[.disparity] = AuxiliaryImageInfo(
            depth: DepthRepresentation(kind: .uniformDisparity, disparityMinimum: 0.2, disparityMaximum: 2))
        photo.setAuxiliary(TestImages.matte(width: 64, height: 48), for: .portraitMatte)
        return photo
    }

    @Test func aJPEGWithNewDepthIsWrittenAsDynamicDepthAndReadBack() throws {
        let photo = photoWithDepth()
        var notes: [String: String] = [:]
        let output = try ImageEncoder.encode(photo, as: .jpeg, quality: 92, heif: HEIFWriteOptions(), notes: &notes)
        #expect(notes["dynamicDepth"]?.contains("portraitMatte") == true, "\(notes)")
        let url = folder.appendingPathComponent("dynamic-depth.jpg")
        try output.write(to: url)
        let again = try ImageDecoder.decodePhoto(at: url)
        // The disparity in metres-inverse, back within the 16-bit PNG's quantisation.
        let read = try #require(again.auxiliary[.disparity])
        let info = try #require(again.metadata.auxiliaryInfo[.disparity])
        let range = try #require(info.depth?.valueRange)
        let original = try #require(photo.auxiliary[.disparity])
        var worst = 0.0
        for y in 0..<24 {
            for x in 0..<32 {
                let value = range.lowerBound + read.sample(x: x, y: y) / 65535 * (range.upperBound - range.lowerBound)
                worst = max(worst, abs(value - original.sample(x: x, y: y)))
            }
        }
        #expect(worst < 2.0 / 65535 * 10, "largest disparity error \(worst)")
        #expect(info.source?.hasPrefix("Dynamic Depth depth map (RangeInverse") == true)
        #expect(again.auxiliary[.portraitMatte]?.hasSamePixels(as: try #require(photo.auxiliary[.portraitMatte])) == true)
        // exiftool sees the container's items as the specification names them.
        let listed = TestEnvironment.run(["/usr/bin/exiftool", "-s", "-G1", "-ContainerDirectoryItemMime", "-CameraDepthMapFormat", url.path]).output
        #expect(listed.contains("image/jpeg, image/png, image/png") && listed.contains("RangeInverse"), "\(listed)")
    }

    @Test func aDynamicDepthItemLengthPastTheEndIsANote() throws {
        for (name, length, padding, expected) in [
            ("past the end", "99999999", "0", "more than the file's"), ("no length", "", "0", "no usable Item:Length"),
            ("padding", "20", "20", "padding"),
        ] {
            let photo = try decode(try PhoneDepthFixtures.dynamicDepth(length: length, padding: padding), "\(name).jpg")
            #expect(note(photo).contains(expected), "\(name): \(note(photo))")
            #expect(photo.auxiliary[.disparity] == nil && photo.primary.width == PhoneDepthFixtures.width, "\(name)")
            _ = try ImageEncoder.encode(photo, as: .jpeg)
        }
    }
}
