import Foundation
import MatteboxRuntime
import MatteboxTestSupport

/// `mattebox serve` started for a test on a free loopback port, with replay
/// cameras and a scratch library, spoken to over plain sockets so the test
/// controls every byte (headers, hosts, bodies, connections left open).
final class ServedApp {
    let process: LineChannelProcess
    let port: Int
    let library: URL
    let token: String

    /// A back camera (MJPEG, region of interest) showing a photo with faces, and a YUYV front camera.
    static func cameras(in folder: URL) throws -> URL {
        let config = folder.appendingPathComponent("cameras.yaml")
        let faces = "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"
        let photos = TestEnvironment.packageRoot.appendingPathComponent("Samples/photos").path
        let back = FileManager.default.fileExists(atPath: faces) ? faces : "\(photos)/orientation-1.jpg"
        try """
            cameras:
              - name: Studio Back
                position: back
                images: [\(back)]
                format: MJPG
                sizes: [640x480, 1280x960]
                regionOfInterest: true
              - name: Studio Front
                position: front
                images: [\(photos)/selfie-front.jpg]
                format: YUYV
                sizes: [640x480]
            """.write(to: config, atomically: true, encoding: .utf8)
        return config
    }

    /// `prepare` is given the library folder (made) before the server starts.
    /// `cameras` replaces the test's own replay cameras (e.g. the repository's Samples/cameras.yaml).
    /// `library` serves an existing folder (a second run on the first's photos).
    init(
        _ extra: [String] = [], pipeline: String = "upright", cameras: URL? = nil, library existing: URL? = nil,
        prepare: (URL) throws -> Void = { _ in }
    ) throws {
        let folder = try TestEnvironment.scratchDirectory("serve")
        library = existing ?? folder.appendingPathComponent("library")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        try prepare(library)
        process = try LineChannelProcess(arguments: [
            TestEnvironment.mattebox, "serve", "--cameras", try cameras?.path ?? Self.cameras(in: folder).path, "--library", library.path,
            "--listen", "127.0.0.1:0", "--pipeline", pipeline, "--ignore-pressure",
        ] + extra, environment: TestEnvironment.isolatedFolders)
        let banner = String(decoding: try process.receiveLine(timeout: 60), as: UTF8.self)
        guard let range = banner.range(of: #"127\.0\.0\.1:(\d+)/"#, options: .regularExpression),
            let port = Int(banner[range].dropFirst("127.0.0.1:".count).dropLast())
        else { throw MatteboxError("serve printed no address: \(banner)") }
        self.port = port
        let page = try Self.request("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n", port: port).body
        let text = String(decoding: page, as: UTF8.self)
        guard let meta = text.range(of: #"content="[0-9a-f]{48}""#, options: .regularExpression) else {
            throw MatteboxError("the page carries no token")
        }
        token = String(text[meta].dropFirst(9).dropLast())
    }

    deinit { _ = process.kill() }

    var pid: pid_t { process.pid }

    struct Reply {
        var status: Int
        var head: String
        var body: Data
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    /// One request on its own connection; `headers` are added to Host and Connection: close.
    func send(
        _ method: String, _ path: String, json: String? = nil, token: Bool = false, headers: [String] = [], host: String? = nil
    ) throws -> Reply {
        var lines = ["\(method) \(path) HTTP/1.1", "Host: \(host ?? "127.0.0.1:\(port)")", "Connection: close"]
        if token { lines.append("X-Mattebox-Token: \(self.token)") }
        lines += headers
        let body = json ?? ""
        if json != nil || method != "GET" {
            lines += ["Content-Type: application/json", "Content-Length: \(body.utf8.count)"]
        }
        return try Self.request(lines.joined(separator: "\r\n") + "\r\n\r\n" + body, port: port)
    }

    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw MatteboxError("cannot connect to 127.0.0.1:\(port): \(String(cString: strerror(errno)))")
        }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    static func write(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    /// Sends `text` and reads until the server closes (bodies with Connection: close).
    static func request(_ text: String, port: Int) throws -> Reply {
        let fd = try connect(port: port)
        defer { close(fd) }
        write(fd, text)
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            data.append(contentsOf: buffer[0..<n])
        }
        guard let split = data.range(of: Data("\r\n\r\n".utf8)) else { return Reply(status: 0, head: "", body: data) }
        let head = String(decoding: data[..<split.lowerBound], as: UTF8.self)
        var body = Data(data[split.upperBound...])
        if head.lowercased().contains("transfer-encoding: chunked") { body = dechunk(body) }
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        return Reply(status: status, head: head, body: body)
    }

    static func dechunk(_ data: Data) -> Data {
        var result = Data()
        var rest = data[...]
        while let lineEnd = rest.range(of: Data("\r\n".utf8)) {
            let size = Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self), radix: 16) ?? 0
            if size == 0 { break }
            let start = lineEnd.upperBound
            guard rest.distance(from: start, to: rest.endIndex) >= size else { break }
            let end = rest.index(start, offsetBy: size)
            result.append(rest[start..<end])
            rest = rest[rest.index(end, offsetBy: min(2, rest.distance(from: end, to: rest.endIndex)))...]
        }
        return result
    }

    /// Resident memory of the server, in MiB.
    var residentMiB: Double {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
    }
}
