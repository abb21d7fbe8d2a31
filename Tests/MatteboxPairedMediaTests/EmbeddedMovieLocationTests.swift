import Foundation
import MatteboxImageIO
import MatteboxMovie
import MatteboxPairedMedia
import MatteboxTestSupport
import Testing

/// A Motion Photo's movie located from the file's structure alone agrees with
/// what the whole-file readers (libvips for the JPEG, the HEIF box reader for
/// the HEIC) find, for Motion Photos Mattebox makes from a real photo.
@Suite struct EmbeddedMovieLocationTests {
    let folder: URL

    init() throws { folder = try TestEnvironment.scratchDirectory("embedded-movie-location") }

    static let frames = (0..<8).map { index in
        MovieFrame(bytes: [UInt8](repeating: UInt8(index * 30), count: 64 * 48 * 3), timestamp: UInt64(index) * 33_333_333, input: .rgb24)
    }
    static let format = MovieFormat(width: 64, height: 48, input: .rgb24, framesPerSecond: 30)

    func still(_ name: String, as format: OutputFormat) throws -> URL {
        let photo = try ImageDecoder.decodePhoto(at: TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras/astronaut.jpg"))
        let url = folder.appendingPathComponent(name)
        try ImageEncoder.encode(photo, as: format).write(to: url)
        return url
    }

    func located(_ url: URL) throws -> Data? {
        try EmbeddedMovieLocation.range(in: url).map { try Data(contentsOf: url)[$0] }
    }

    @Test func aJPEGMotionPhotosMovieIsTheOneTheReaderFinds() throws {
        let motion = try MotionPhoto.make(
            still: try still("a.jpg", as: .jpeg), frames: Self.frames, stillTimestamp: Self.frames[4].timestamp, format: Self.format,
            settings: MovieSettings())
        let read = try #require(try ImageDecoder.decodePhoto(at: motion).metadata.motionPhotoMovie)
        #expect(try located(motion) == read)
        #expect(try MovieInspector.inspect(Array(read), name: "movie").videoFrames == 8)
    }

    @Test func aHEICMotionPhotosMovieIsTheOneTheReaderFinds() throws {
        let motion = try HEICMotionPhoto.make(
            still: try still("b.heic", as: .heic), frames: Self.frames, stillTimestamp: Self.frames[4].timestamp, format: Self.format,
            settings: MovieSettings())
        let read = try #require(try ImageDecoder.decodePhoto(at: motion).metadata.motionPhotoMovie)
        #expect(try located(motion) == read)
    }

    @Test func aCameraMakersTrailerAfterTheMovieIsLeftOut() throws {
        let motion = try HEICMotionPhoto.make(
            still: try still("c.heic", as: .heic), frames: Self.frames, stillTimestamp: Self.frames[4].timestamp, format: Self.format,
            settings: MovieSettings())
        // Samsung's cameras end the mpvd box with a 'sefd' box after the movie: make the box hold one.
        var bytes = [UInt8](try Data(contentsOf: motion))
        let movie = try #require(try located(motion))
        let boxStart = bytes.count - movie.count - 8
        #expect(Array(bytes[(boxStart + 4)..<(boxStart + 8)]) == Array("mpvd".utf8))
        let trailer: [UInt8] = [0, 0, 0, 16] + Array("sefd".utf8) + [1, 2, 3, 4, 5, 6, 7, 8]
        bytes += trailer
        let length = UInt32(movie.count + 8 + trailer.count)
        bytes.replaceSubrange(boxStart..<(boxStart + 4), with: [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)])
        let samsung = folder.appendingPathComponent("samsung.heic")
        try Data(bytes).write(to: samsung)
        #expect(try located(samsung) == movie, "the movie without the trailer")
        #expect(try ImageDecoder.decodePhoto(at: samsung).metadata.motionPhotoMovie == movie, "as the whole-file reader takes it")
    }

    @Test func aStillWithoutAMovieHasNone() throws {
        #expect(EmbeddedMovieLocation.range(in: try still("d.jpg", as: .jpeg)) == nil)
        #expect(EmbeddedMovieLocation.range(in: try still("e.heic", as: .heic)) == nil)
        #expect(EmbeddedMovieLocation.range(in: folder.appendingPathComponent("missing.jpg")) == nil)
    }
}
