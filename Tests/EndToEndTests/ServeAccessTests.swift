import Foundation
import MatteboxTestSupport
import Testing

/// The camera app reaches no file outside its library and believes no client's
/// word about where it is: `mattebox serve` spoken to from outside the process,
/// with a canary image beside the library, hostile forwarding headers and
/// requests as another site's page would make them.
@Suite(.serialized) struct ServeAccessTests {
    /// A library holding a photo with a portrait matte and depth (the selfie sample exported as
    /// HEIC), and a canary image outside it that no request may reach.
    static func servedWithCanary(_ extra: [String] = []) throws -> (app: ServedApp, canary: URL) {
        let samples = TestEnvironment.packageRoot.appendingPathComponent("Samples/photos")
        let outside = try TestEnvironment.scratchDirectory("serve-canary")
        let canary = outside.appendingPathComponent("canary.png")
        try FileManager.default.copyItem(at: samples.appendingPathComponent("selfie-front.portraitMatte.png"), to: canary)
        let app = try ServedApp(extra) { library in
            let export = TestEnvironment.run([
                TestEnvironment.mattebox, "export", samples.appendingPathComponent("selfie-front.jpg").path,
                "-o", library.appendingPathComponent("selfie.heic").path,
                "--depth", samples.appendingPathComponent("selfie-front.depth.png").path,
                "--portrait-matte", samples.appendingPathComponent("selfie-front.portraitMatte.png").path,
            ])
            guard export.status == 0 else { throw TestFailure("export failed: \(export.errors)") }
            try FileManager.default.copyItem(
                at: samples.appendingPathComponent("orientation-1.jpg"), to: library.appendingPathComponent("wall.jpg"))
        }
        return (app, canary)
    }

    struct TestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static func query(_ values: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return values.sorted { $0.key < $1.key }
            .map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&")
    }

    /// Issue 60's first hole: a background image (or a face model) named by a path on the server.
    @Test func thePortraitRouteTakesNoPathAndSaysNothingOfOne() throws {
        let (app, canary) = try Self.servedWithCanary()
        let missing = canary.deletingLastPathComponent().appendingPathComponent("no-such-file.png").path
        // Without the token (no page, no script), nothing is rendered from request parameters.
        let anonymous = try app.send(
            "GET", "/api/library/selfie.heic/portrait.jpg?size=320&" + Self.query(["background": "image", "background-image": canary.path]))
        #expect(anonymous.status == 403, "\(anonymous.status) \(String(decoding: anonymous.body, as: UTF8.self))")
        // With it, a path is refused the same way whether or not a file is there.
        var answers: [String: (Int, String)] = [:]
        for (name, path) in [("canary", canary.path), ("missing", missing), ("shadow", "/etc/shadow")] {
            for (key, extra) in [("background-image", ["background": "image"]), ("faces", [:]), ("cascades", [:])] {
                let values = extra.merging([key: path]) { a, _ in a }
                let reply = try app.send("GET", "/api/library/selfie.heic/portrait.jpg?size=320&" + Self.query(values), token: true)
                let words = String(decoding: reply.body, as: UTF8.self).replacingOccurrences(of: path, with: "PATH")
                #expect(reply.status == 400, "\(key)=\(path): \(reply.status) \(words)")
                #expect(!words.contains("readable") && !words.contains("OpenCV"), "\(key)=\(path) told of the file: \(words)")
                answers["\(key) \(name)"] = (reply.status, words)
                let saved = try app.send("POST", "/api/library/selfie.heic/portrait", json: Self.json(values), token: true)
                #expect(saved.status == 400, "POST \(key)=\(path): \(saved.status)")
            }
        }
        for key in ["background-image", "faces", "cascades"] {
            let (canaryAnswer, missingAnswer, shadowAnswer) = (answers["\(key) canary"]!, answers["\(key) missing"]!, answers["\(key) shadow"]!)
            #expect(canaryAnswer == missingAnswer && missingAnswer == shadowAnswer, "\(key): the answers differ by what is on the disk")
        }
        // A library photo's id is what the app takes as a background image.
        let composited = try app.send(
            "GET", "/api/library/selfie.heic/portrait.jpg?size=320&" + Self.query(["background": "image", "background-image": "wall.jpg"]),
            token: true)
        #expect(composited.status == 200 && composited.body.starts(with: [0xFF, 0xD8]), "\(composited.status)")
        let listed = try app.send("GET", "/api/library").json["photos"] as? [[String: Any]] ?? []
        #expect(Set(listed.compactMap { $0["id"] as? String }) == ["selfie.heic", "wall.jpg"], "a refused request wrote something: \(listed)")
    }

    static func json(_ values: [String: String]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: values, options: [.sortedKeys]), as: UTF8.self)
    }

    /// Every parameter of the portrait effect, and the library routes' ids, given path-like values:
    /// none answers with an image, and none answers differently for a file that is there and one that is not.
    @Test func noRouteOrParameterReachesAPath() throws {
        let (app, canary) = try Self.servedWithCanary()
        let description = TestEnvironment.run([TestEnvironment.mattebox, "plugins", "inspect", "portrait-effect", "--json"])
        let report = (try? JSONSerialization.jsonObject(with: Data(description.output.utf8))) as? [String: Any] ?? [:]
        let plugin = report["plugin"] as? [String: Any] ?? [:]
        let keys = ((plugin["parameters"] as? [[String: Any]]) ?? []).compactMap { $0["key"] as? String }
        #expect(keys.contains("background-image") && keys.contains("faces"), "\(description.output.prefix(300))")
        let missing = canary.deletingLastPathComponent().appendingPathComponent("none.png").path
        let relative = "../" + canary.deletingLastPathComponent().lastPathComponent + "/canary.png"
        for key in keys {
            var answers: [String] = []
            for value in [canary.path, missing, relative, "/etc/shadow", "file://" + canary.path] {
                var values = ["background": "image"]
                values[key] = value
                let reply = try app.send("GET", "/api/library/selfie.heic/portrait.jpg?size=200&" + Self.query(values), token: true)
                #expect(reply.status != 200, "\(key)=\(value) rendered")
                answers.append("\(reply.status) " + String(decoding: reply.body, as: UTF8.self).replacingOccurrences(of: value, with: "V"))
            }
            #expect(answers[0] == answers[1], "\(key): a file there and none there answer differently: \(answers[0]) / \(answers[1])")
        }
        for route in ["file", "thumbnail.jpg", "overlay/portraitMatte", "movie", "portrait.jpg"] {
            for id in ["..%2F" + canary.deletingLastPathComponent().lastPathComponent + "%2Fcanary.png", "%2Fetc%2Fpasswd", "..", "."] {
                let reply = try app.send("GET", "/api/library/\(id)/\(route)", token: true)
                #expect(reply.status == 404 || reply.status == 400, "\(id)/\(route): \(reply.status)")
            }
        }
    }

    /// Issue 60's second hole: behind a proxy, the client is the address the trusted proxy saw.
    @Test func behindAProxyOnlyTheProxysOwnEntryIsBelieved() throws {
        let (app, _) = try Self.servedWithCanary(["--behind-proxy"])
        let file = "/api/library/wall.jpg/file"
        #expect(try app.send("GET", file).status == 200, "a loopback client with no forwarding header")
        #expect(try app.send("GET", file, headers: ["X-Forwarded-For: 127.0.0.1"]).status == 200, "a client on this machine, through the proxy")
        for hostile in [
            ["X-Forwarded-For: 127.0.0.1, 203.0.113.5"],
            ["X-Forwarded-For: 127.0.0.1", "X-Forwarded-For: 203.0.113.5"],
            ["Forwarded: for=127.0.0.1, for=203.0.113.5"],
            ["Forwarded: for=\"[::1]\";proto=http, for=203.0.113.5"],
            ["Forwarded: for=127.0.0.1", "X-Forwarded-For: 203.0.113.5"],
            ["X-Forwarded-For: 127.0.0.1, unknown"],
        ] {
            let reply = try app.send("GET", file, headers: hostile)
            #expect(reply.status == 401, "\(hostile) was let in: \(reply.status)")
            #expect(!reply.body.starts(with: [0xFF, 0xD8]))
            #expect(try app.send("GET", file, headers: hostile + ["X-Mattebox-Token: \(app.token)"]).status == 200)
        }
    }

    /// A proxy named with --trusted-proxy is the only one believed: the loopback peer's headers are then not.
    @Test func aNamedTrustedProxyIsTheOnlyOneBelieved() throws {
        let (app, _) = try Self.servedWithCanary(["--trusted-proxy", "192.0.2.10"])
        #expect(try app.send("GET", "/api/library/wall.jpg/file", headers: ["X-Forwarded-For: 203.0.113.5"]).status == 200)
        let refused = TestEnvironment.run([TestEnvironment.mattebox, "serve", "--trusted-proxy", "not-an-address"])
        #expect(refused.status == 64 && refused.errors.contains("--trusted-proxy"), "\(refused.status) \(refused.errors)")
    }

    /// Issue 57 (5): a script finds the token where serve starts: it prints the header to send.
    @Test func serveTellsScriptsTheToken() throws {
        let app = try ServedApp()
        var said = ""
        for _ in 0..<3 {
            guard let line = try? app.process.receiveLine(timeout: 10) else { break }
            said += String(decoding: line, as: UTF8.self) + "\n"
            if said.contains("X-Mattebox-Token") { break }
        }
        #expect(said.contains("X-Mattebox-Token: \(app.token)"), "\(said)")
        #expect(try app.send("POST", "/api/session/resume", headers: ["X-Mattebox-Token: \(app.token)"]).status == 200)
    }

    /// Another site's page cannot use the app as an image oracle: its `<img>` requests carry
    /// Sec-Fetch-Site or a foreign Referer; a link followed to the page itself still opens it.
    @Test func requestsFromAnotherSitesPageAreRefused() throws {
        let (app, _) = try Self.servedWithCanary()
        for headers in [
            ["Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: no-cors", "Sec-Fetch-Dest: image"],
            ["Sec-Fetch-Site: same-site", "Sec-Fetch-Dest: image"],
            ["Referer: http://evil.example/page.html"],
            ["Referer: http://127.0.0.1:1/other-app"],
        ] {
            for path in ["/api/library/wall.jpg/thumbnail.jpg", "/api/library/wall.jpg/file", "/api/library", "/api/status"] {
                let reply = try app.send("GET", path, headers: headers)
                #expect(reply.status == 403, "\(headers) \(path): \(reply.status)")
            }
        }
        #expect(try app.send("GET", "/api/library/wall.jpg/thumbnail.jpg", headers: ["Sec-Fetch-Site: same-origin"]).status == 200)
        #expect(try app.send("GET", "/api/library/wall.jpg/thumbnail.jpg", headers: ["Referer: http://127.0.0.1:\(app.port)/"]).status == 200)
        let followed = try app.send("GET", "/", headers: ["Sec-Fetch-Site: cross-site", "Sec-Fetch-Mode: navigate", "Sec-Fetch-Dest: document"])
        #expect(followed.status == 200, "a link to the app from another page")
        // A script's bearer header works as the token header does.
        #expect(try app.send("POST", "/api/session/resume", headers: ["Authorization: Bearer \(app.token)"]).status == 200)
    }
}
