import Foundation
import MatteboxTestSupport
import Testing

/// `mattebox serve` over HTTP without a browser: the API, the token and
/// origin rules, the limits, the library, and a preview that many viewers
/// cannot turn against the camera.
@Suite(.serialized) struct ServeCommandTests {
    @Test func theShutterWritesIntoTheLibraryAndTrashCanBeRestored() throws {
        let app = try ServedApp()
        let refused = try app.send("POST", "/api/capture", json: "{}")
        #expect(refused.status == 403, "a change without the page's token is refused")
        let shot = try app.send("POST", "/api/capture", json: #"{"quality":"speed","format":"jpeg"}"#, token: true)
        #expect(shot.status == 200, "\(String(decoding: shot.body, as: UTF8.self))")
        let id = try #require(shot.json["id"] as? String)
        // The answer comes with the photo as taken on disk; the final replaces it when processed.
        #expect(id.hasSuffix(".jpg") && FileManager.default.fileExists(atPath: app.library.appendingPathComponent(id).path))
        #expect(shot.json["state"] as? String == "processing" && shot.json["pressToProxySeconds"] is Double)
        #expect(try Waiting.until {
            let photos = try app.send("GET", "/api/library").json["photos"] as? [[String: Any]] ?? []
            return photos.first { $0["id"] as? String == id }.map { ($0["processing"] as? Bool) != true } ?? false
        }, "the library shows the photo final once processed")

        let listing = try app.send("GET", "/api/library").json["photos"] as? [[String: Any]] ?? []
        #expect(listing.first?["id"] as? String == id)
        let thumbnail = try app.send("GET", "/api/library/\(id)/thumbnail.jpg")
        #expect(thumbnail.status == 200 && thumbnail.body.starts(with: [0xFF, 0xD8]))

        #expect(try app.send("DELETE", "/api/library/\(id)", token: true).status == 200)
        #expect(!FileManager.default.fileExists(atPath: app.library.appendingPathComponent(id).path))
        #expect(FileManager.default.fileExists(atPath: app.library.appendingPathComponent(".trash/\(id)").path))
        #expect((try app.send("GET", "/api/trash").json["photos"] as? [[String: Any]])?.first?["id"] as? String == id)
        #expect(try app.send("POST", "/api/trash/\(id)/restore", token: true).status == 200)
        #expect(FileManager.default.fileExists(atPath: app.library.appendingPathComponent(id).path))

        // A file another tool drops into the folder appears; the index on disk is kept.
        try FileManager.default.copyItem(
            at: TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-6.jpg"),
            to: app.library.appendingPathComponent("from-elsewhere.jpg"))
        let again = try app.send("GET", "/api/library").json["photos"] as? [[String: Any]] ?? []
        #expect(Set(again.compactMap { $0["id"] as? String }) == [id, "from-elsewhere.jpg"])
        #expect(FileManager.default.fileExists(atPath: app.library.appendingPathComponent(".mattebox/library.json").path))
    }

    /// Found: with a pipeline whose HEIF stage decides the format, a JPEG asked for by the page came out as HEIC.
    @Test func theAppHonoursTheFormatOrRefusesItNamingTheStage() throws {
        let app = try ServedApp(pipeline: "heif-package")
        let offered = try app.send("GET", "/api/status").json["formats"] as? [String]
        #expect(offered == ["auto", "heic", "avif"], "the page offers only what the pipeline honours: \(offered ?? [])")
        let refused = try app.send("POST", "/api/capture", json: #"{"quality":"speed","format":"jpeg"}"#, token: true)
        let message = String(decoding: refused.body, as: UTF8.self)
        #expect(refused.status == 400 && message.contains("org.mattebox.heif"), "\(message)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: app.library.path).filter { !$0.hasPrefix(".") }.isEmpty)
        let heic = try app.send("POST", "/api/capture", json: #"{"quality":"speed","format":"heic"}"#, token: true)
        #expect(heic.status == 200 && (heic.json["id"] as? String)?.hasSuffix(".heic") == true, "\(String(decoding: heic.body, as: UTF8.self))")
        // AVIF is the stage's layout with AV1 images: its proxy and final are AVIF files libheif opens.
        let avif = try app.send("POST", "/api/capture", json: #"{"quality":"speed","format":"avif","wait":"final"}"#, token: true)
        let id = avif.json["id"] as? String ?? ""
        #expect(avif.status == 200 && id.hasSuffix(".avif"), "\(String(decoding: avif.body, as: UTF8.self))")
        let info = TestEnvironment.run(["heif-info", app.library.appendingPathComponent(id).path])
        #expect(info.status == 0 && info.output.contains("main brand: avif"), "\(info.output)\(info.errors)")
    }

    @Test func theAppRecordsMoviesAndTakesLivePhotos() throws {
        let app = try ServedApp()
        let early = try app.send("POST", "/api/capture", json: #"{"quality":"speed","format":"jpeg","live":true}"#, token: true)
        #expect(early.status == 503 && String(decoding: early.body, as: UTF8.self).contains("Live Photo capture is off"))
        #expect(try app.send("POST", "/api/live", json: #"{"enabled":true}"#, token: true).json["livePhotos"] as? Bool == true)
        // The pre-roll is full (1.5 s before the press), however long filling it takes.
        var preRoll = 0.0
        #expect(try Waiting.until {
            preRoll = try app.send("GET", "/api/status").json["livePhotoPreRollSeconds"] as? Double ?? 0
            return preRoll >= 1.4
        }, "the pre-roll spans \(preRoll) s")
        let shot = try app.send("POST", "/api/capture", json: #"{"quality":"speed","format":"jpeg","live":true,"wait":"final"}"#, token: true)
        #expect(shot.status == 200, "\(String(decoding: shot.body, as: UTF8.self))")
        let movie = try #require((shot.json["livePhoto"] as? [String])?.first)
        let frames = try MovieProbe.read(movie).frames
        #expect(movie.hasSuffix(".mov") && frames > 60)

        let started = try app.send("POST", "/api/recording", json: #"{"action":"start"}"#, token: true)
        let path = try #require(started.json["path"] as? String)
        #expect(try app.send("GET", "/api/status").json["session"].flatMap { ($0 as? [String: Any])?["recording"] as? String } == path)
        #expect(try app.send("POST", "/api/recording", json: #"{"action":"start"}"#, token: true).status == 409)
        // Some frames reach the movie: the stream keeps ten more after the start.
        func framesKept() throws -> Int { try app.send("GET", "/api/status").json["framesKept"] as? Int ?? 0 }
        let framesAtStart = try framesKept()
        #expect(try Waiting.until { try framesKept() >= framesAtStart + 10 }, "the camera kept streaming while recording")
        let stopped = try app.send("POST", "/api/recording", json: #"{"action":"stop"}"#, token: true)
        #expect(stopped.json["complete"] as? Bool == true && stopped.json["path"] as? String == path)
        #expect(try MovieProbe.read(path).frames == stopped.json["frames"] as? Int)
        #expect(try app.send("POST", "/api/recording", json: #"{"action":"pause"}"#, token: true).status == 400)

        // The library: the recording is listed as a movie; the Live Photo's movie is not listed
        // apart but named on its still, served, and trashed and restored with it.
        let listing = try app.send("GET", "/api/library").json["photos"] as? [[String: Any]] ?? []
        let stillID = try #require(shot.json["id"] as? String), movieID = URL(fileURLWithPath: movie).lastPathComponent
        let still = app.library.appendingPathComponent(stillID).path
        let recordingID = URL(fileURLWithPath: path).lastPathComponent
        #expect(listing.first { $0["id"] as? String == recordingID }?["kind"] as? String == "movie")
        #expect(listing.first { $0["id"] as? String == stillID }?["livePhotoMovie"] as? String == movieID)
        #expect(!listing.contains { $0["id"] as? String == movieID })
        let served = try app.send("GET", "/api/library/\(stillID)/movie")
        #expect(served.status == 200 && served.head.lowercased().contains("video/quicktime"))
        #expect(served.body == (try Data(contentsOf: URL(fileURLWithPath: movie))))
        #expect(try app.send("GET", "/api/library/\(recordingID)/movie").body == (try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(try app.send("GET", "/api/library/\(recordingID)/thumbnail.jpg").status == 404)

        // Byte ranges, so the viewer can seek: a part, the last bytes, one past the end, and a
        // list of ranges (answered whole).
        let recording = try Data(contentsOf: URL(fileURLWithPath: path))
        let moviePath = "/api/library/\(recordingID)/movie"
        let part = try app.send("GET", moviePath, headers: ["Range: bytes=100-1099"])
        #expect(part.status == 206 && part.body == recording[100...1099])
        #expect(part.head.lowercased().contains("content-range: bytes 100-1099/\(recording.count)"))
        #expect(part.head.lowercased().contains("accept-ranges: bytes"))
        let last = try app.send("GET", moviePath, headers: ["Range: bytes=-500"])
        #expect(last.status == 206 && last.body == recording.suffix(500))
        let open = try app.send("GET", "/api/library/\(stillID)/movie", headers: ["Range: bytes=2000-"])
        let liveMovie = try Data(contentsOf: URL(fileURLWithPath: movie))
        #expect(open.status == 206 && open.body == liveMovie.dropFirst(2000))
        let beyond = try app.send("GET", moviePath, headers: ["Range: bytes=\(recording.count)-"])
        #expect(beyond.status == 416 && beyond.head.lowercased().contains("content-range: bytes */\(recording.count)"))
        // Found: a last position too large for a 64-bit integer answered 200; it is clamped to the end (RFC 9110).
        let huge = try app.send("GET", moviePath, headers: ["Range: bytes=0-18446744073709551615"])
        #expect(huge.status == 206 && huge.body == recording, "\(huge.status)")
        let several = try app.send("GET", moviePath, headers: ["Range: bytes=0-9,20-29"])
        #expect(several.status == 200 && several.body == recording)
        #expect(try app.send("DELETE", "/api/library/\(stillID)", token: true).status == 200)
        #expect(FileManager.default.fileExists(atPath: app.library.appendingPathComponent(".trash/\(movieID)").path))
        #expect(!FileManager.default.fileExists(atPath: movie))
        #expect(try app.send("POST", "/api/trash/\(stillID)/restore", token: true).status == 200)
        #expect(FileManager.default.fileExists(atPath: movie) && FileManager.default.fileExists(atPath: still))
    }

    @Test func clientsBeyondLoopbackNeedTheTokenAndForeignOriginsAreRefused() throws {
        let app = try ServedApp(["--behind-proxy"])
        let remote = "X-Forwarded-For: 203.0.113.7"
        let anonymous = try app.send("GET", "/api/status", headers: [remote])
        #expect(anonymous.status == 401, "a non-loopback client without the token is refused")
        #expect(String(decoding: anonymous.body, as: UTF8.self).contains("token"))
        #expect(try app.send("GET", "/api/status", headers: [remote, "Authorization: Bearer \(app.token)"]).status == 200)
        let login = try app.send("GET", "/?token=\(app.token)", headers: [remote])
        #expect(login.status == 303 && login.head.lowercased().contains("set-cookie: mattebox_token="))
        #expect(try app.send("GET", "/api/status", headers: [remote, "Cookie: mattebox_token=\(app.token)"]).status == 200)
        #expect(try app.send("GET", "/api/status", headers: [remote, "Authorization: Bearer wrong"]).status == 401)
        // A cookie is not enough to change things: a forged cross-site request carries cookies too.
        #expect(try app.send("POST", "/api/session/resume", headers: ["Cookie: mattebox_token=\(app.token)"]).status == 403)
        #expect(try app.send("POST", "/api/session/resume", token: true, headers: ["Origin: http://evil.example"]).status == 403)
        #expect(try app.send("POST", "/api/session/resume", token: true, headers: ["Origin: http://127.0.0.1:\(app.port)"]).status == 200)
        // DNS rebinding: a foreign host name for a loopback server.
        #expect(try app.send("GET", "/api/status", host: "evil.example:\(app.port)").status == 403)
    }

    /// The library's index is Mattebox's cache: when it is garbage the library is read again from the
    /// folder, the photos all listed and none touched.
    @Test func aCorruptLibraryIndexIsRebuiltFromTheFolder() throws {
        let photo = TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-6.jpg")
        let app = try ServedApp { library in
            try FileManager.default.copyItem(at: photo, to: library.appendingPathComponent("kept.jpg"))
            try FileManager.default.createDirectory(at: library.appendingPathComponent(".mattebox"), withIntermediateDirectories: true)
            try Data("{\"items\": [garbage".utf8).write(to: library.appendingPathComponent(".mattebox/library.json"))
        }
        let listing = try app.send("GET", "/api/library").json["photos"] as? [[String: Any]] ?? []
        #expect(listing.compactMap { $0["id"] as? String } == ["kept.jpg"], "\(listing)")
        #expect(try Data(contentsOf: app.library.appendingPathComponent("kept.jpg")) == Data(contentsOf: photo))
        let index = try Data(contentsOf: app.library.appendingPathComponent(".mattebox/library.json"))
        #expect((try? JSONSerialization.jsonObject(with: index)) != nil, "the index was written again, whole")
    }

    /// Without --behind-proxy a forwarding header is anybody's to send, so it is not believed (the peer
    /// is what counts), and a loopback client may name the server by its IPv6 loopback address.
    @Test func forwardingHeadersAreIgnoredUnlessBehindAProxyAndIPv6LoopbackIsAHost() throws {
        let app = try ServedApp()
        for header in ["X-Forwarded-For: 203.0.113.7", "Forwarded: for=203.0.113.7"] {
            #expect(try app.send("GET", "/api/status", headers: [header]).status == 200, "\(header) was believed")
        }
        #expect(try app.send("GET", "/api/status", host: "[::1]:\(app.port)").status == 200)
        #expect(try app.send("GET", "/api/status", host: "localhost:\(app.port)").status == 200)
        #expect(try app.send("GET", "/api/status", host: "[::2]:\(app.port)").status == 403)
    }

    /// Found: half-open connections were never closed, and a body that never arrived held the connection with no reply.
    @Test func requestsThatNeverFinishArriveAreAnsweredAndClosed() throws {
        let app = try ServedApp(["--request-timeout", "2"])
        // Ten clients that send half a request head and wait.
        var halfOpen: [Int32] = []
        for _ in 0..<10 {
            let fd = try ServedApp.connect(port: app.port)
            ServedApp.write(fd, "GET /api/status HTTP/1.1\r\nHost: 127.0.0.1:\(app.port)\r\nX-Slow: ")
            halfOpen.append(fd)
        }
        // A body shorter than its length, and a chunk announced far larger than it is.
        let short = try ServedApp.connect(port: app.port)
        ServedApp.write(short, "PUT /api/controls HTTP/1.1\r\nHost: 127.0.0.1:\(app.port)\r\nX-Mattebox-Token: \(app.token)\r\n"
            + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"gain\":")
        let chunked = try ServedApp.connect(port: app.port)
        ServedApp.write(chunked, "PUT /api/controls HTTP/1.1\r\nHost: 127.0.0.1:\(app.port)\r\nX-Mattebox-Token: \(app.token)\r\n"
            + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFF\r\n{")
        // Meanwhile the server answers others.
        #expect(try app.send("GET", "/api/status").status == 200)
        // Each is closed by the server within the limit (the sockets' own receive timeout, 30 s, is far beyond it).
        for fd in halfOpen {
            var byte: UInt8 = 0
            #expect(recv(fd, &byte, 1, 0) == 0, "a half-open connection was closed by the server")
            close(fd)
        }
        for fd in [short, chunked] {
            var data = [UInt8](repeating: 0, count: 4096)
            var received = Data()
            while true {
                let n = recv(fd, &data, data.count, 0)
                if n <= 0 { break }
                received.append(contentsOf: data[0..<n])
            }
            let head = String(decoding: received, as: UTF8.self)
            #expect(head.hasPrefix("HTTP/1.1 408") || head.hasPrefix("HTTP/1.1 413") || head.hasPrefix("HTTP/1.1 400"), "answered: \(head)")
            close(fd)
        }
    }

    @Test func limitsOnHeadersBodiesAndPathsHold() throws {
        let app = try ServedApp()
        let huge = try app.send("GET", "/api/status", headers: ["X-Filler: " + String(repeating: "a", count: 20_000)])
        #expect(huge.status != 200, "an oversized header is refused (status \(huge.status))")
        let body = "{\"gain\": \"" + String(repeating: "9", count: 100_000) + "\"}"
        #expect(try app.send("PUT", "/api/controls", json: body, token: true).status == 413)
        #expect(try app.send("PUT", "/api/controls", json: "not json", token: true).status == 400)
        for path in ["/api/library/..%2F..%2Fetc%2Fpasswd/file", "/api/library/.mattebox/file", "/api/library/passwd.jpg/file"] {
            #expect(try app.send("GET", path).status == 404, "\(path)")
        }
        try FileManager.default.createSymbolicLink(
            atPath: app.library.appendingPathComponent("link.jpg").path, withDestinationPath: "/etc/passwd")
        #expect(try app.send("GET", "/api/library/link.jpg/file").status == 404, "a symbolic link is never followed")
        let listing = try app.send("GET", "/api/library").json["photos"] as? [[String: Any]] ?? []
        #expect(!listing.contains { $0["id"] as? String == "link.jpg" })
        // The server still answers after all that.
        #expect(try app.send("GET", "/api/status").status == 200)
    }

    /// Issue 46, finding 13: a body that is not the JSON object asked for is 400 with words a client can act
    /// on (not Swift's decoder text), a malformed chunk is 400 (not 413), and every error has one shape.
    @Test func badBodiesAre400InWordsAndEveryErrorHasOneShape() throws {
        let app = try ServedApp()
        func error(_ reply: ServedApp.Reply) -> String? { reply.json["error"] as? String }
        let empty = try app.send("PUT", "/api/controls", json: "", token: true)
        #expect(empty.status == 400 && error(empty)?.contains("needs a JSON object") == true, "\(String(decoding: empty.body, as: UTF8.self))")
        let array = try app.send("PUT", "/api/controls", json: "[1]", token: true)
        #expect(array.status == 400 && error(array)?.contains("the body should be a JSON object") == true, "\(error(array) ?? "")")
        let half = try app.send("POST", "/api/focus", json: #"{"x": 0.5}"#, token: true)
        #expect(half.status == 400 && error(half)?.contains("`y` is missing") == true, "\(error(half) ?? "")")
        let wrong = try app.send("POST", "/api/focus", json: #"{"x": "left", "y": 0.5}"#, token: true)
        #expect(wrong.status == 400 && error(wrong)?.contains("`x` should be a number") == true, "\(error(wrong) ?? "")")
        let tooLarge = try app.send("PUT", "/api/controls", json: "{\"gain\": \"" + String(repeating: "9", count: 100_000) + "\"}", token: true)
        #expect(tooLarge.status == 413 && error(tooLarge) != nil, "one shape for Hummingbird's errors too")
        let chunked = try ServedApp.request(
            "PUT /api/controls HTTP/1.1\r\nHost: 127.0.0.1:\(app.port)\r\nConnection: close\r\nX-Mattebox-Token: \(app.token)\r\n"
                + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", port: app.port)
        #expect(chunked.status == 400, "a chunk size that is not hex is a bad request (status \(chunked.status))")
        let missing = try app.send("GET", "/api/library/nope.jpg/file")
        #expect(missing.status == 404 && error(missing) != nil)
    }

    @Test func libraryFilesAreServedWithTheirOwnMIMEType() throws {
        let source = TestEnvironment.packageRoot.appendingPathComponent("Samples/photos/orientation-1.jpg").path
        let app = try ServedApp { library in
            for (name, format) in [("t.tif", "tif"), ("w.webp", "webp"), ("p.png", "png"), ("j.jpg", "jpg")] {
                let made = TestEnvironment.run(["/usr/bin/vips", "copy", source, library.appendingPathComponent(name).path + "[]"])
                #expect(made.status == 0, "\(format): \(made.errors)")
            }
        }
        for (name, type) in [("t.tif", "image/tiff"), ("w.webp", "image/webp"), ("p.png", "image/png"), ("j.jpg", "image/jpeg")] {
            let reply = try app.send("GET", "/api/library/\(name)/file")
            #expect(reply.status == 200, "\(name): \(reply.status)")
            #expect(reply.head.lowercased().contains("content-type: \(type)"), "\(name): \(reply.head)")
        }
    }

    @Test func controlsAndFocusGoThroughTheCameraAndShowInThePreview() throws {
        let app = try ServedApp()
        func brightness() throws -> Double {
            let jpeg = try app.send("GET", "/preview.jpg").body
            let url = try TestEnvironment.scratchDirectory("preview").appendingPathComponent("frame.jpg")
            try jpeg.write(to: url)
            let stats = TestEnvironment.run(["vips", "avg", url.path])
            return Double(stats.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        let before = try brightness()
        #expect(before > 0, "vips avg reads the preview frame")
        let set = try app.send("PUT", "/api/controls", json: #"{"exposure_time_absolute": 450, "auto_exposure": "manual_mode"}"#, token: true)
        #expect(set.status == 200, "\(String(decoding: set.body, as: UTF8.self))")
        var after = before
        #expect(try Waiting.until { after = try brightness(); return after > before * 1.3 },
                "manual exposure brightens the preview: \(before) -> \(after)")
        let bad = try app.send("PUT", "/api/controls", json: #"{"gain": 1000}"#, token: true)
        #expect(bad.status == 400 && String(decoding: bad.body, as: UTF8.self).contains("within 0...100"))
        let focus = try app.send("POST", "/api/focus", json: #"{"x": 0.25, "y": 0.5}"#, token: true)
        let controls = focus.json["controls"] as? [[String: Any]] ?? []
        let rectangle = controls.first { $0["name"] as? String == "region_of_interest_rectangle" }?["value"] as? [String: Int]
        // The stream is 1280x960: an eighth of it around (320, 480).
        #expect(rectangle == ["left": 240, "top": 420, "width": 160, "height": 120], "\(String(decoding: focus.body, as: UTF8.self))")
    }

    @Test func mjpegPassesThroughYUYVIsEncodedOnceAndIdleViewersCannotStopCapture() throws {
        let app = try ServedApp()
        // Two viewers read a few parts each: whole JPEGs, the camera's own bytes.
        for _ in 0..<2 {
            let fd = try ServedApp.connect(port: app.port)
            ServedApp.write(fd, "GET /preview.mjpg HTTP/1.1\r\nHost: 127.0.0.1:\(app.port)\r\n\r\n")
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 65536)
            while data.count < 400_000 {
                let n = recv(fd, &buffer, buffer.count, 0)
                if n <= 0 { break }
                data.append(contentsOf: buffer[0..<n])
            }
            close(fd)
            #expect(String(decoding: data.prefix(400), as: UTF8.self).contains("multipart/x-mixed-replace"))
            #expect(data.range(of: Data("Content-Type: image/jpeg".utf8)) != nil)
        }
        let counters = try app.send("GET", "/api/status").json["preview"] as? [String: Int] ?? [:]
        #expect((counters["passedThrough"] ?? 0) > 0 && counters["encoded"] == 0, "\(counters)")

        // 200 viewers that never read.
        let memoryBefore = app.residentMiB
        var idle: [Int32] = []
        defer { idle.forEach { close($0) } }
        for _ in 0..<200 {
            let fd = try ServedApp.connect(port: app.port)
            ServedApp.write(fd, "GET /preview.mjpg HTTP/1.1\r\nHost: 127.0.0.1:\(app.port)\r\n\r\n")
            idle.append(fd)
        }
        // Every viewer is attached before memory is read.
        #expect(try Waiting.until {
            (try app.send("GET", "/api/status").json["preview"].flatMap { ($0 as? [String: Int])?["viewers"] } ?? 0) >= 200
        })
        let settled = app.residentMiB
        print("serve with 200 idle viewers: \(memoryBefore) MiB -> \(settled) -> \(app.residentMiB) MiB")
        let shot = try app.send("POST", "/api/capture", json: #"{"quality":"speed","format":"jpeg"}"#, token: true)
        #expect(shot.status == 200, "capture works with 200 idle viewers: \(String(decoding: shot.body, as: UTF8.self))")
        let status = try app.send("GET", "/api/status").json
        #expect((status["preview"] as? [String: Int])?["viewers"] ?? 0 >= 200)
        #expect(app.residentMiB - memoryBefore < 200, "memory stays bounded: \(memoryBefore) -> \(app.residentMiB) MiB")

        // The YUYV front camera: frames are encoded, once however many watch.
        let cameras = status["cameras"] as? [[String: Any]] ?? []
        let front = try #require(cameras.first { $0["position"] as? String == "front" }?["id"] as? String)
        #expect(try app.send("POST", "/api/camera", json: "{\"camera\": \"\(front)\"}", token: true).status == 200)
        var after: [String: Int] = [:]
        #expect(try Waiting.until {
            after = try app.send("GET", "/api/status").json["preview"] as? [String: Int] ?? [:]
            return (after["encoded"] ?? 0) > 0
        }, "\(after)")
    }

    /// Out of the box: the repository's sample cameras and the portrait-mattes pipeline give the
    /// app's shutter a photo with a portrait matte and hair and skin mattes (the front camera plays
    /// a real portrait).
    @Test func theSampleFrontCameraGivesTheAppsShutterMattes() throws {
        let app = try ServedApp(pipeline: "portrait-mattes", cameras: TestEnvironment.packageRoot.appendingPathComponent("Samples/cameras.yaml"))
        let cameras = try app.send("GET", "/api/status").json["cameras"] as? [[String: Any]] ?? []
        let front = try #require(cameras.first { $0["position"] as? String == "front" }?["id"] as? String)
        #expect(try app.send("POST", "/api/camera", json: "{\"camera\": \"\(front)\"}", token: true).status == 200)
        #expect(try Waiting.until {
            (try app.send("GET", "/api/status").json["session"] as? [String: Any])?["state"] as? String == "running"
        })
        let shot = try app.send("POST", "/api/capture", json: #"{"quality":"balanced","format":"heic","wait":"final"}"#, token: true)
        #expect(shot.status == 200, "\(String(decoding: shot.body, as: UTF8.self))")
        let photo = app.library.appendingPathComponent(try #require(shot.json["id"] as? String))
        let inspected = TestEnvironment.run([TestEnvironment.mattebox, "inspect", photo.path, "--json"])
        let listing = try JSONSerialization.jsonObject(with: Data(inspected.output.utf8)) as? [String: Any]
        let roles = Set(((listing?["auxiliary"] as? [[String: Any]]) ?? []).compactMap { $0["role"] as? String })
        #expect(roles.isSuperset(of: ["portraitMatte", "hairMatte", "skinMatte"]), "\(roles): \(String(decoding: shot.body, as: UTF8.self))")
    }

    @Test func anUnpluggedCameraInterruptsAndAReplugResumes() throws {
        let app = try ServedApp()
        #expect(try app.send("POST", "/api/replay/unplug", token: true).status == 200)
        func session() throws -> [String: Any] { try app.send("GET", "/api/status").json["session"] as? [String: Any] ?? [:] }
        #expect(try Waiting.until {
            let now = try session()
            return now["state"] as? String == "interrupted" && now["interruption"] as? String == "videoDeviceNotAvailable"
        }, "\((try? session()) ?? [:])")
        #expect(try app.send("POST", "/api/capture", json: "{}", token: true).status == 503)
        #expect(try app.send("POST", "/api/replay/replug", token: true).status == 200)
        #expect(try Waiting.until { try session()["state"] as? String == "running" }, "\((try? session()) ?? [:])")
    }
}

extension ServeCommandTests {
    @Test func stoppingEndsOpenPreviewAndEventStreams() throws {
        let app = try ServedApp()
        var open: [Int32] = []
        defer { open.forEach { close($0) } }
        for path in ["/preview.mjpg", "/api/events"] {
            let fd = try ServedApp.connect(port: app.port)
            ServedApp.write(fd, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(app.port)\r\n\r\n")
            open.append(fd)
        }
        // Both streams are open on the server's side before it is stopped.
        #expect(try Waiting.until {
            (try app.send("GET", "/api/status").json["preview"].flatMap { ($0 as? [String: Int])?["viewers"] } ?? 0) >= 1
        })
        kill(app.pid, SIGTERM)
        var status: Int32 = 0
        var exited = false
        for _ in 0..<200 where !exited {
            exited = waitpid(app.pid, &status, WNOHANG) == app.pid
            if !exited { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(exited, "SIGTERM with a viewer and an event stream open must not hang the server")
        #expect(exited && status & 0x7f == 0 && (status >> 8) & 0xff == 0, "clean exit, status \(status)")
    }
}
