import Foundation
import MatteboxPairedMedia
import MatteboxTestSupport
import Testing

/// `inspect` locates a Motion Photo's movie in its file without reading the file whole:
/// at the end, where cameras and Mattebox put it, or anywhere a rewriting tool moved it,
/// including across the boundary of the chunks the file is read in.
@Suite struct EmbeddedMovieOffsetTests {
    let folder: URL
    /// Stands in for an MP4: its first box is `ftyp`, then bytes no other part of the file has.
    let movie = Data([0, 0, 0, 24] + Array("ftypmp42".utf8) + (0..<4000).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) })

    init() throws { folder = try TestEnvironment.scratchDirectory("embedded-movie") }

    func file(_ name: String, before: Int, after: Int) throws -> URL {
        let url = folder.appendingPathComponent(name)
        try (Data(repeating: 0xAB, count: before) + movie + Data(repeating: 0xCD, count: after)).write(to: url)
        return url
    }

    @Test func foundAtTheEndOfTheFile() throws {
        #expect(LivePhotoInspection.offset(of: movie, in: try file("end.jpg", before: 5000, after: 0)) == 5000)
    }

    @Test func foundWhereARewriteMovedItEvenAcrossAChunkBoundary() throws {
        let chunk = 1 << 20
        #expect(LivePhotoInspection.offset(of: movie, in: try file("middle.jpg", before: 100, after: 300)) == 100)
        // The movie's first bytes straddle the first chunk's end.
        let straddling = chunk - 20
        #expect(LivePhotoInspection.offset(of: movie, in: try file("straddle.jpg", before: straddling, after: 10)) == straddling)
        #expect(LivePhotoInspection.offset(of: movie, in: try file("second.jpg", before: chunk + 4096, after: 64)) == chunk + 4096)
    }

    @Test func absentWhenTheFileDoesNotHoldIt() throws {
        let url = folder.appendingPathComponent("none.jpg")
        try Data(repeating: 0xAB, count: 3 << 20).write(to: url)
        #expect(LivePhotoInspection.offset(of: movie, in: url) == nil)
        #expect(LivePhotoInspection.offset(of: movie, in: folder.appendingPathComponent("missing.jpg")) == nil)
    }
}
