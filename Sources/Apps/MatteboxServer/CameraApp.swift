import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import MatteboxCapture
import MatteboxCaptureService
import MatteboxCore
import MatteboxImageIO
import MatteboxLibrary
import MatteboxPipeline
import MatteboxPluginHost
import MatteboxPressure
import MatteboxRuntime
import NIOCore

/// Where and how `mattebox serve` listens, and its limits.
package struct ServeConfiguration: Sendable {
    package var host = "127.0.0.1"
    package var port = 8088
    package var token: String?
    /// Believe the forwarding headers of a reverse proxy on this machine.
    package var behindProxy = false
    /// The proxies whose forwarding headers are believed (`--trusted-proxy`); loopback when empty and behind a proxy.
    package var trustedProxies: [AddressRange] = []
    package var library: URL
    /// Open connections at once; more wait in the listen backlog.
    package var maximumConnections = 512
    /// Live-preview streams at once; more are refused with 503.
    package var maximumViewers = 256
    /// Event streams at once.
    package var maximumEventListeners = 64
    /// Seconds a connection may sit between requests.
    package var idleTimeout: Int64 = 30
    /// Seconds a request's head, and then its body, may take to arrive (`RequestDeadline`).
    package var requestTimeout: Int64 = 10
    /// Bytes the photos waiting to be processed may hold (`--queue-memory`).
    package var queueMemory = CaptureSession.defaultQueueMemory

    package init(library: URL) { self.library = library }
}

/// The camera app behind `mattebox serve`, AVCam's face in a browser: one
/// capture session (made by `CaptureService`, so photos go through the same
/// pipeline and writer as `mattebox capture`) written into a library folder,
/// its live preview, event timeline and the camera's controls, served over
/// HTTP by Hummingbird with one page of plain HTML, CSS and JavaScript.
package final class CameraApp: Sendable {
    let configuration: ServeConfiguration
    let session: CaptureSession
    let cameras: [CameraDevice]
    let preview: PreviewHub
    let events: EventHub
    let library: LibraryRoutes
    let plugins: PluginRoutes
    package let policy: AccessPolicy
    /// The auxiliary images the pipeline makes (the page hides toggles for the rest).
    let deliverableRoles: Set<ImageRole>
    /// The pipeline photos go through, to refuse settings it would not honour (a format its HEIF stage overrides).
    let pipeline: ValidatedPipeline?
    /// Cameras with UVC's region of interest (tap to focus), asked once at start.
    let tapToFocusCameras: Set<String>

    package init(
        configuration: ServeConfiguration, cameras: [CameraDevice], camera: CameraDevice?, pipeline: PipelineSource?,
        registry: PluginRegistry, pressureMonitor: PressureMonitor?
    ) throws {
        self.configuration = configuration
        self.cameras = cameras
        let folder = try PhotoLibrary(folder: configuration.library)
        let delivery = try CaptureService.makeDelivery(
            pipeline: pipeline, registry: registry, writer: PhotoWriter(directory: folder.folder, format: nil))
        let pending = delivery.pending
        library = LibraryRoutes(library: folder, registry: registry, processing: { pending.names })
        plugins = PluginRoutes(registry: registry)
        deliverableRoles = delivery.deliverableRoles
        self.pipeline = delivery.runner?.pipeline
        session = try CaptureSession(
            cameras: cameras, camera: camera, delivery: delivery, movieOutput: MovieFileOutput(directory: folder.folder),
            pressureMonitor: pressureMonitor, queueMemory: configuration.queueMemory)
        preview = PreviewHub(maximumViewers: configuration.maximumViewers)
        events = EventHub(maximumListeners: configuration.maximumEventListeners)
        tapToFocusCameras = Set(cameras.filter { camera in
            camera.problem == nil && ((try? camera.controls()) ?? []).contains { $0.kind == .rectangle && $0.name == "region_of_interest_rectangle" }
        }.map(\.id))
        policy = AccessPolicy(
            listenHost: configuration.host, token: configuration.token, behindProxy: configuration.behindProxy,
            trustedProxies: configuration.trustedProxies)
    }

    /// Starts the camera and serves until the process is asked to stop
    /// (SIGINT/SIGTERM), then finishes the photos in flight. `onListening`
    /// gets the address the server listens on (with the port chosen when 0).
    package func run(onListening: @escaping @Sendable (String) -> Void) async throws {
        let previewFeed = session.previewFrames()
        let eventFeed = session.events
        let hub = preview, timeline = events
        let feeding = Task { await hub.run(previewFeed) }
        let listening = Task { await timeline.run(eventFeed) }
        let heartbeat = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(15))
                timeline.ping()
            }
        }
        defer {
            feeding.cancel()
            listening.cancel()
            heartbeat.cancel()
        }
        try await session.startRunning()
        // Photos an earlier run left as proxies (it was killed) are finished first, in the background.
        let resumed = await session.resumePending()
        if !resumed.isEmpty { Log.emit(.info, "finishing \(resumed.count) photo(s) an earlier run left as proxies") }
        // Hummingbird shuts down gracefully on SIGINT/SIGTERM, waiting for open responses;
        // the live preview and event streams never end by themselves, so end them first.
        // A viewer that stopped reading keeps its last write pending for ever: after a grace
        // period the photos in flight are finished and the process ends regardless.
        let session = self.session
        let closers = [SIGINT, SIGTERM].map { signalNumber in
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                hub.finish()
                timeline.finish()
                Task {
                    try? await Task.sleep(for: .seconds(5))
                    Log.emit(.warning, "connections still open 5 s after the stop request (clients not reading); closing them")
                    await session.stopRunning()
                    exit(0)
                }
            }
            source.resume()
            return source
        }
        defer { closers.forEach { $0.cancel() } }

        let router = Router(context: AppRequestContext.self)
        router.add(middleware: JSONErrorMiddleware())
        router.add(middleware: AccessMiddleware(policy: policy))
        addPageRoutes(to: router)
        addSessionRoutes(to: router)
        library.add(to: router)
        plugins.add(to: router)
        let requestTimeout = configuration.requestTimeout
        let application = Application(
            router: router,
            server: .http1(configuration: .init(
                additionalChannelHandlers: [RequestDeadline(limit: .seconds(requestTimeout))],
                idleTimeout: .seconds(configuration.idleTimeout),
                httpDecoderConfiguration: .init(maxHeaderFieldSize: 8 * 1024, maxHeaderListSize: 32 * 1024, maxHeaderFieldCount: 100))),
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: "Mattebox",
                availableConnectionsDelegate: MaximumAvailableConnections(configuration.maximumConnections)),
            onServerRunning: { channel in
                let address = channel.localAddress
                onListening("\(address?.ipAddress ?? "?"):\(address?.port ?? 0)")
            },
            logger: Self.quietLogger())
        do {
            try await application.runService()
        } catch {
            await session.stopRunning()
            throw error
        }
        await session.stopRunning()
    }

    /// Hummingbird's own logging at warnings and above; Mattebox logs what matters.
    private static func quietLogger() -> Logger {
        var logger = Logger(label: "mattebox.serve")
        logger.logLevel = .warning
        return logger
    }

    /// The camera the session streams now.
    func currentCamera() async -> CameraDevice { await session.configuration.camera }
}

