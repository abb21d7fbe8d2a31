import Foundation
import MatteboxCore
import MatteboxHEIF
import MatteboxImageIO
import MatteboxMetadata
import MatteboxMovie
import MatteboxPairedMedia
import MatteboxTestSupport
import Testing

/// A photo that is both HDR and a Motion Photo (as Pixel phones write them, and as an iPhone Live
/// Photo becomes for Android) keeps both in a JPEG: one Container directory of the primary, the
/// gain map after it and the movie at the end; read back, and carried on into HEIC and JPEG again.
struct UltraHDRMotionPhotoTests {
    let folder: URL
    init() throws { folder = try TestEnvironment.scratchDirectory("ultra-hdr-motion-photo") }

    static let frames = (0..<6).map { index in
        MovieFrame(bytes: [UInt8](repeating: UInt8(index * 40), count: 64 * 48 * 3), timestamp: UInt64(index) * 33_333_333, input: .rgb24)
    }

    /// The pug has depth too (Dynamic Depth items then sit between the gain map and the movie); the
    /// iPhone 13 Pro Max photo has none.
    @Test(arguments: ["pillow_heif__pug.heic", "exif-samples__iphone_13_pro_max.HEIC"])
    func aJPEGHoldsTheGainMapAndTheMovieTogether(_ sample: String) throws {
        guard let shared = TestEnvironment.shared else {
            print("../shared is not beside this clone; the HDR Motion Photo test is skipped")
            return
        }
        var photo = try ImageDecoder.decodePhoto(at: shared.appendingPathComponent("heic-samples/\(sample)"))
        let depth = photo.auxiliary[.disparity] ?? photo.auxiliary[.depth]
        let headroom = try #require(photo.gainMapHeadroomStops)
        let movie = try MotionPhoto.encode(
            frames: Self.frames, stillTimestamp: Self.frames[3].timestamp,
            format: MovieFormat(width: 64, height: 48, input: .rgb24, framesPerSecond: 30), settings: MovieSettings(),
            beside: folder.appendingPathComponent("still.jpg"))
        photo.metadata.motionPhotoMovie = Data(movie.bytes)
        photo.metadata.xmp = MotionPhotoXMP.adding(
            movieLength: movie.bytes.count, presentationMicroseconds: movie.presentationMicroseconds, to: photo.metadata.xmp,
            primaryMime: "image/jpeg", padding: 0)

        var notes: [String: String] = [:]
        let jpeg = folder.appendingPathComponent("\(sample).jpg")
        try ImageEncoder.encode(photo, as: .jpeg, quality: 92, heif: HEIFWriteOptions(), notes: &notes).write(to: jpeg)
        #expect(notes["hdrGainMap"]?.hasPrefix("written as Ultra HDR") == true, "\(notes)")
        #expect(notes["motionPhoto"] == nil, "\(notes)")

        let read = try ImageDecoder.decodePhoto(at: jpeg)
        #expect(read.metadata.motionPhotoMovie == Data(movie.bytes), "the movie is found from the file's end")
        #expect(read.auxiliary[.appleHDRGainMap] != nil, "the gain map is found through MPF")
        #expect(abs((read.gainMapHeadroomStops ?? 0) - headroom) < 0.01)
        let packet = try XMPPacket(try #require(read.metadata.xmp))
        #expect(packet.directory.map { $0["Semantic"] ?? "" } == ["Primary", "GainMap", "MotionPhoto"])
        #expect(packet.directory.last?["Length"] == String(movie.bytes.count))
        #expect((read.auxiliary[.disparity] != nil) == (depth != nil), "the depth is read back as well")

        // Carried on: into HEIC (the movie in its mpvd box, the gain map an auxiliary image) and JPEG again.
        for format in [OutputFormat.heic, .jpeg] {
            var again: [String: String] = [:]
            let out = folder.appendingPathComponent("\(sample).again.\(format.rawValue)")
            try ImageEncoder.encode(read, as: format, quality: 80, heif: HEIFWriteOptions(), notes: &again).write(to: out)
            let back = try ImageDecoder.decodePhoto(at: out)
            #expect((back.auxiliary[.disparity] != nil) == (depth != nil), "\(format.rawValue): \(again)")
            #expect(back.metadata.motionPhotoMovie == Data(movie.bytes), "\(format.rawValue): \(again)")
            #expect(back.auxiliary[.appleHDRGainMap] != nil, "\(format.rawValue): \(again)")
            let semantics = try XMPPacket(try #require(back.metadata.xmp)).directory.map { $0["Semantic"] ?? "" }
            #expect(semantics == (format == .jpeg ? ["Primary", "GainMap", "MotionPhoto"] : ["Primary", "MotionPhoto"]), "\(format.rawValue)")
        }
    }
}
