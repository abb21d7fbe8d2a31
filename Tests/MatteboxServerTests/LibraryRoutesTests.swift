import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import MatteboxLibrary
import MatteboxMovie
import MatteboxPairedMedia
import MatteboxPluginHost
import MatteboxServer
import MatteboxTestSupport
import NIOCore
import Testing

/// The library's routes over HTTP on loopback, without a camera: a real
/// Hummingbird server (stopped by the test) over a folder holding a real JPEG
/// with its Live Photo movie, asked what a browser asks.
@Suite struct LibraryRoutesTests {
    let folder: URL
    let photo: Data
    let movie: Data
    let policy = AccessPolicy(listenHost: "127.0.0.1", token: "library-test-token")

    init() throws {
        folder = try TestEnvironment.scratchDirectory("library-routes")
        photo = try Data(contentsOf: TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras/astronaut.jpg"))
        try photo.write(to: folder.appendingPathComponent("a.jpg"))
        let frames = (0..<6).map { index in
            MovieFrame(bytes: [UInt8](repeating: UInt8(index * 40), count: 32 * 24 * 3), timestamp: UInt64(index) * 33_333_333, input: .rgb24)
        }
        _ = try LivePhotoMovie.write(
            frames: frames, stillTimestamp: frames[3].timestamp, contentIdentifier: "ID-1",
            format: MovieFormat(width: 32, height: 24, input: .rgb24, framesPerSecond: 30, rotationDegrees: 0), settings: MovieSettings(),
            to: folder.appendingPathComponent("a.mov").path)
        movie = try Data(contentsOf: folder.appendingPathComponent("a.mov"))
    }

    /// The routes as `mattebox serve` mounts them, behind its access policy.
    func serving(_ test: @escaping @Sendable (PatientClient) async throws -> Void) async throws {
        let router = Router(context: AppRequestContext.self)
        router.add(middleware: AccessMiddleware(policy: policy))
        LibraryRoutes(library: try PhotoLibrary(folder: folder), registry: PluginRegistry(scans: [])).add(to: router)
        let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await PatientClient.serving(application, test)
    }

    struct Listing: Decodable {
        struct Item: Decodable {
            var id: String
            var width: Int?
            var height: Int?
            var kind: String
            var livePhotoMovie: String?
        }
        var photos: [Item]
    }

    static func listing(_ client: PatientClient, _ path: String = "/api/library") async throws -> [Listing.Item] {
        try await client.execute(uri: path, method: .get) { response in
            #expect(response.status == .ok)
            return try JSONDecoder().decode(Listing.self, from: Data(buffer: response.body)).photos
        }
    }

    @Test func listsAStillWithItsLivePhotoMovieAndNotTheMovieApart() async throws {
        try await serving { client in
            let items = try await Self.listing(client)
            #expect(items.map(\.id) == ["a.jpg"], "the Live Photo's movie belongs to its still: \(items.map(\.id))")
            #expect(items.first?.livePhotoMovie == "a.mov" && items.first?.kind == "photo")
            #expect(items.first?.width == 512 && items.first?.height == 384)
        }
    }

    @Test func sendsAFileWholeOrTheOneRangeAskedFor() async throws {
        let photo = self.photo
        let size = photo.count
        try await serving { client in
            try await client.execute(uri: "/api/library/a.jpg/file", method: .get) { response in
                #expect(response.status == .ok)
                #expect(Data(buffer: response.body) == photo)
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(response.headers[.contentDisposition] == "attachment; filename=\"a.jpg\"")
                #expect(response.headers[.acceptRanges] == "bytes")
            }
            // The last 16 bytes (a suffix range; Hummingbird's FileMiddleware would send the first 17).
            try await client.execute(uri: "/api/library/a.jpg/file", method: .get, headers: [.range: "bytes=-16"]) { response in
                #expect(response.status == .partialContent)
                #expect(Data(buffer: response.body) == photo.suffix(16))
                #expect(response.headers[.contentRange] == "bytes \(size - 16)-\(size - 1)/\(size)")
            }
            try await client.execute(uri: "/api/library/a.jpg/file", method: .get, headers: [.range: "bytes=100-199"]) { response in
                #expect(response.status == .partialContent)
                #expect(Data(buffer: response.body) == photo[100...199])
            }
            try await client.execute(uri: "/api/library/a.jpg/file", method: .get, headers: [.range: "bytes=\(size)-"]) { response in
                #expect(response.status == .rangeNotSatisfiable)
                #expect(response.headers[.contentRange] == "bytes */\(size)")
            }
        }
    }

    @Test func playsTheLivePhotoMovieAndMakesAThumbnail() async throws {
        let movie = self.movie
        try await serving { client in
            try await client.execute(uri: "/api/library/a.jpg/movie", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "video/quicktime")
                #expect(Data(buffer: response.body) == movie)
            }
            try await client.execute(uri: "/api/library/a.jpg/movie", method: .get, headers: [.range: "bytes=0-7"]) { response in
                #expect(response.status == .partialContent && Data(buffer: response.body) == movie.prefix(8))
            }
            try await client.execute(uri: "/api/library/a.jpg/thumbnail.jpg", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "image/jpeg")
                #expect(Array(Data(buffer: response.body).prefix(2)) == [0xFF, 0xD8])
            }
        }
    }

    @Test func streamsAMotionPhotosMovieFromInsideTheStill() async throws {
        let still = folder.appendingPathComponent("m.jpg")
        try photo.write(to: still)
        let frames = (0..<6).map { index in
            MovieFrame(bytes: [UInt8](repeating: UInt8(index * 40), count: 32 * 24 * 3), timestamp: UInt64(index) * 33_333_333, input: .rgb24)
        }
        let motion = try MotionPhoto.make(
            still: still, frames: frames, stillTimestamp: frames[2].timestamp,
            format: MovieFormat(width: 32, height: 24, input: .rgb24, framesPerSecond: 30), settings: MovieSettings())
        let file = try Data(contentsOf: motion)
        let range = try #require(EmbeddedMovieLocation.range(in: motion))
        let movie = file[range]
        #expect(range.upperBound == file.count && movie.count < file.count / 2)
        try await serving { client in
            try await client.execute(uri: "/api/library/\(motion.lastPathComponent)/movie", method: .get) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "video/mp4")
                #expect(Data(buffer: response.body) == movie)
            }
            try await client.execute(
                uri: "/api/library/\(motion.lastPathComponent)/movie", method: .get, headers: [.range: "bytes=-100"]
            ) { response in
                #expect(response.status == .partialContent && Data(buffer: response.body) == movie.suffix(100))
                #expect(response.headers[.contentRange] == "bytes \(movie.count - 100)-\(movie.count - 1)/\(movie.count)")
            }
        }
    }

    @Test func reachesNothingButPlainFilesInTheFolder() async throws {
        let outside = try TestEnvironment.scratchDirectory("library-routes-outside").appendingPathComponent("secret.jpg")
        try Data("secret".utf8).write(to: outside)
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("link.jpg"), withDestinationURL: outside)
        #expect(mkfifo(folder.appendingPathComponent("fifo.jpg").path, 0o600) == 0)
        try await serving { client in
            #expect(try await Self.listing(client).map(\.id) == ["a.jpg"], "a link and a FIFO are not photos of the library")
            for uri in [
                "/api/library/link.jpg/file", "/api/library/fifo.jpg/file", "/api/library/..%2F..%2Fetc%2Fpasswd/file",
                "/api/library/missing.jpg/thumbnail.jpg", "/api/library/notes.txt/file",
            ] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .notFound, "\(uri): \(response.status)")
                    #expect(String(buffer: response.body).contains("\"error\""), "\(uri) answers JSON with the reason")
                }
            }
        }
    }

    @Test func trashesAndRestoresAStillWithItsMovieOnlyWithTheToken() async throws {
        let folder = self.folder, photo = self.photo
        let token = HTTPField.Name("X-Mattebox-Token")!
        try await serving { client in
            try await client.execute(uri: "/api/library/a.jpg", method: .delete) { response in
                #expect(response.status == .forbidden, "a change needs the token header")
            }
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("a.jpg").path))
            try await client.execute(uri: "/api/library/a.jpg", method: .delete, headers: [token: "library-test-token"]) { response in
                #expect(response.status == .ok)
            }
            for name in ["a.jpg", "a.mov"] {
                #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(".trash/\(name)").path), "\(name) went to the trash")
                #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path))
            }
            #expect(try await Self.listing(client).isEmpty)
            #expect(try await Self.listing(client, "/api/trash").map(\.id) == ["a.jpg"])
            // Another photo took the name meanwhile: restoring refuses, and nothing moves.
            try Data([1, 2, 3]).write(to: folder.appendingPathComponent("a.jpg"))
            try await client.execute(uri: "/api/trash/a.jpg/restore", method: .post, headers: [token: "library-test-token"]) { response in
                #expect(response.status == .conflict)
            }
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(".trash/a.mov").path))
            try FileManager.default.removeItem(at: folder.appendingPathComponent("a.jpg"))
            try await client.execute(uri: "/api/trash/a.jpg/restore", method: .post, headers: [token: "library-test-token"]) { response in
                #expect(response.status == .ok)
            }
            #expect(try Data(contentsOf: folder.appendingPathComponent("a.jpg")) == photo)
            #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("a.mov").path))
        }
    }
}
