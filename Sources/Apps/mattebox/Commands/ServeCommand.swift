import ArgumentParser
import Foundation
import MatteboxCapture
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxPressure
import MatteboxRuntime
import MatteboxServer

/// `mattebox serve`: the camera app in a browser.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "The camera app: live preview, shutter, camera controls and a photo library in a browser.",
        discussion: """
            Serves one page (plain HTML, CSS and JavaScript) with the camera's live preview \
            (/preview.mjpg: an MJPEG camera's frames pass through untouched; other formats are \
            encoded once for all viewers), a shutter that takes photos through the pipeline into the \
            library folder (the same pipeline and writer as `mattebox capture`), the camera switch, \
            quality, format and auxiliary-image toggles (shown only when the pipeline makes them), \
            the camera's own controls (exposure, gain, white balance, focus, ...; tap to focus where \
            the camera has UVC's region of interest), interruption banners, and the library with \
            thumbnails, overlays of depth and mattes, download, and a trash that can be restored.

            It listens on 127.0.0.1:8088 by default. Any other address needs a token: give one \
            with --token, or one is made and printed once with the address to open. Requests that \
            change something always need the token the page carries, and a same-origin request. \
            The JSON API (GET /api/status, POST /api/capture, GET/PUT /api/controls, GET \
            /api/events as server-sent events, GET /api/library, ...) is what the page uses; \
            scripts can use it with the header X-Mattebox-Token (or Authorization: Bearer), the \
            token printed at start. Images derived from request parameters (the Portrait \
            control's renders) need the token too; requests made by another site's page are \
            refused. Behind a reverse proxy (--behind-proxy, --trusted-proxy) the client is the \
            address the trusted proxy saw, the rightmost forwarded entry that is not a trusted proxy.

            A press answers as soon as its frame is secured and the photo as taken is written \
            (the proxy, in the format the final will have); mattes, depth and HEIF packaging \
            follow in the background, one photo at a time, and replace it (the library shows it \
            as processing until then). When presses come faster than processing, a photo with \
            others waiting behind it is made at speed (noted in the photo); quality never is. \
            The shutter is refused only when the photos waiting hold --queue-memory. Photos a \
            killed run left as proxies are finished when serve starts again.
            """)

    @OptionGroup var verbosity: Verbosity
    @OptionGroup var sources: CameraSources
    @OptionGroup var camera: CameraChoice
    @Option(help: "Address and port to listen on (HOST:PORT; port 0 picks a free one).") var listen = "127.0.0.1:8088"
    @Option(help: "Folder the photos are written to and listed from (default: ~/Pictures/Mattebox).") var library: String?
    @Option(
        help: "Pipeline file (YAML), named pipeline, or stages joined by ! (as for process); default: portrait-mattes when installed, else turn photos upright.",
        completion: Completions.pipelines)
    var pipeline: String?
    @Option(help: "The token clients must present (default: one is made up at start).") var token: String?
    @Option(help: "Seconds a request's head, and then its body, may take to arrive; slower clients are disconnected (408 once the head is in).")
    var requestTimeout: Int64 = 10
    @Flag(help: "Behind a reverse proxy on this machine: the client is the address it saw (X-Forwarded-For or Forwarded), not the proxy's.")
    var behindProxy = false
    @Option(
        name: .customLong("trusted-proxy"),
        help: ArgumentHelp(
            "A reverse proxy whose forwarding headers are believed (an address or CIDR block; repeat for several). Implies --behind-proxy; default with --behind-proxy: loopback.",
            valueName: "ADDR"))
    var trustedProxies: [String] = []
    @Flag(help: "Do not follow the machine's thermal and CPU pressure.") var ignorePressure = false
    @OptionGroup var queue: CaptureQueueOption

    func validate() throws {
        guard Self.split(listen) != nil else {
            throw ValidationError("--listen takes HOST:PORT (127.0.0.1:8088, [::1]:8088, 0.0.0.0:8088), not \(listen)")
        }
        for proxy in trustedProxies where AddressRange(proxy) == nil {
            throw ValidationError("--trusted-proxy takes an IP address or a CIDR block (127.0.0.1, 10.0.0.0/8, ::1), not \(proxy)")
        }
        if let token, token.count < 16 || token.contains(where: { $0.isWhitespace }) {
            throw ValidationError("--token must be at least 16 characters without spaces")
        }
    }

    static func split(_ address: String) -> (host: String, port: Int)? {
        guard let colon = address.lastIndex(of: ":"), let port = Int(address[address.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(address[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    func run() async throws {
        let (host, port) = Self.split(listen)!
        let cameras = try sources.discover()
        let chosen = try camera.choose(from: cameras)
        let folder = library.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent("Pictures/Mattebox")
        var configuration = ServeConfiguration(library: folder)
        configuration.host = host
        configuration.port = port
        configuration.token = token
        configuration.behindProxy = behindProxy
        configuration.trustedProxies = trustedProxies.compactMap(AddressRange.init)
        guard requestTimeout >= 1 else { throw ValidationError("--request-timeout must be at least 1 second") }
        configuration.requestTimeout = requestTimeout
        configuration.queueMemory = queue.bytes
        let pipelineSource = try pipeline.map { try PipelineSource.load($0, registry: PluginRegistry.discoverForThisExecutable()) }
            ?? (PipelineSource.named["portrait-mattes"] != nil ? try PipelineSource.load("portrait-mattes") : PipelineSource.load(nil))
        let app = try CameraApp(
            configuration: configuration, cameras: cameras, camera: chosen, pipeline: pipelineSource,
            registry: PluginRegistry.discoverForThisExecutable(), pressureMonitor: ignorePressure ? nil : PressureMonitor())
        let policy = app.policy
        let pipelineName = pipelineSource.path
        try await app.run { address in
            let shown = address.contains(":") && address.split(separator: ":").count > 2 ? "[\(address)]" : address
            var lines = ["Mattebox camera app: http://\(shown)/  (library \(folder.path), pipeline \(pipelineName))"]
            if policy.mustAnnounceToken {
                lines.append("Clients beyond this machine need the token; open http://\(shown)/?token=\(policy.token)")
            } else if !policy.listensOnLoopbackOnly {
                lines.append("Clients beyond this machine need the token given with --token (open /?token=...)")
            }
            // Any program on this machine can read the token from the page; a script needs it for changes.
            lines.append("Scripts: send the header X-Mattebox-Token: \(policy.token) (or Authorization: Bearer) with every change")
            print(lines.joined(separator: "\n"))
            fflush(nil)
        }
    }
}
