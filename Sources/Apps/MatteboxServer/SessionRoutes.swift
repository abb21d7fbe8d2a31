import Foundation
import Hummingbird
import MatteboxCapture
import MatteboxCore
import MatteboxImageIO
import MatteboxPipeline
import MatteboxRuntime

extension CameraApp {
    /// A camera as the page lists it.
    struct CameraInfo: Codable {
        var id: String
        var name: String
        var position: String
        var replay: Bool
        /// Front cameras preview mirrored, as iOS does; their photos stay natural unless asked.
        var mirroredPreview: Bool
        /// Clockwise degrees the page turns the preview to show it upright.
        var previewRotation: Int
        /// The camera has UVC's region of interest: tap to focus and expose.
        var tapToFocus: Bool
    }

    /// What the page needs at load: cameras, what can be delivered, formats, the session.
    struct AppStatus: Codable {
        var cameras: [CameraInfo]
        var camera: String
        var session: EventHub.Status
        var deliverable: Deliverable
        /// The auxiliary images a library photo's Portrait control renders from (any one of them).
        var portraitSources: [String]
        var formats: [String]
        var preview: PreviewHub.Counters
        /// Live Photo capture is on (its pre-roll filling), and the bytes the pre-roll holds.
        var livePhotos: Bool
        var livePhotoPreRollBytes: Int
        /// The time the pre-roll spans (a Live Photo's movie reaches that far before the press).
        var livePhotoPreRollSeconds: Double
        /// Frames the camera delivered and the session kept since its stream last started.
        var framesKept: Int
    }

    struct Deliverable: Codable {
        var depth: Bool
        var portraitMatte: Bool
        var semanticMattes: [String]
    }

    /// A shutter press (AVCapturePhotoSettings).
    struct CaptureRequest: Decodable {
        var quality: String?
        var depth: Bool?
        var portraitMatte: Bool?
        var semanticMattes: Bool?
        var mirrorFront: Bool?
        var format: String?
        /// A Live Photo (Live Photo capture must be on: POST /api/live).
        var live: Bool?
        /// "proxy" (the default): answer once the photo as taken is on disk, its processing
        /// queued; "final": answer when the processed photo has replaced it.
        var wait: String?
    }

    struct CaptureReply: Encodable {
        var id: String
        var files: [String]
        var width: Int
        var height: Int
        var frameSequence: UInt32
        /// CLOCK_MONOTONIC nanoseconds of the frame and of the press.
        var frameTimestamp: UInt64
        var pressTime: UInt64
        var quality: String
        /// "processing" (the proxy is written, the final follows: events `finalWritten`, `didFinish`) or "final".
        var state: String
        var pressToFrameSeconds: Double
        var pressToProxySeconds: Double
        var shutterToFileSeconds: Double?
        var notes: [String: String]
        /// A Live Photo's movie files and why they could not be written.
        var livePhoto: [String]?
        var livePhotoError: String?
    }

    struct LiveRequest: Decodable { var enabled: Bool }
    struct RecordingRequest: Decodable {
        /// "start" or "stop".
        var action: String
        var mirrorFront: Bool?
    }

    struct CameraRequest: Decodable { var camera: String }
    struct FocusRequest: Decodable {
        /// The tapped point in the frame, 0...1 from the left and from the top.
        var x: Double
        var y: Double
    }

    static let semanticRoles = ImageRole.semanticMattes

    /// The session's routes: status and the shutter, then the camera's controls, then the replay cameras' switches.
    func addSessionRoutes(to router: Router<AppRequestContext>) {
        addShutterRoutes(to: router)
        addControlRoutes(to: router)
        addReplayRoutes(to: router)
    }

    /// Status, camera choice, the shutter, Live Photos, recording, resuming after an interruption.
    private func addShutterRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/status") { _, _ in try JSONReply.ok(await self.status()) }

        router.post("/api/camera") { request, context -> Response in
            let wanted = try await JSONReply.decode(CameraRequest.self, from: request, context: context)
            guard let camera = self.cameras.camera(matching: wanted.camera) else {
                return try JSONReply.error(.notFound, "no camera \(wanted.camera)")
            }
            do { try await self.session.switchCamera(to: camera) } catch {
                return try JSONReply.error(.conflict, "cannot switch to \(camera.name): \(error)")
            }
            return try JSONReply.ok(await self.status())
        }

        router.post("/api/capture") { request, context -> Response in
            let wanted = try await JSONReply.decode(
                CaptureRequest.self, from: request, context: context, empty: CaptureRequest())
            let settings: PhotoSettings
            do { settings = try self.photoSettings(wanted) } catch let error as MatteboxError {
                return try JSONReply.error(.badRequest, error.description)
            }
            guard [nil, "proxy", "final"].contains(wanted.wait) else {
                return try JSONReply.error(.badRequest, "wait is proxy or final, not \(wanted.wait!)")
            }
            let taken: TakenPhoto
            do { taken = try await self.session.takePhoto(settings) } catch let refused as ShutterRefused {
                var response = try JSONReply.error(.serviceUnavailable, refused.description)
                response.headers[.retryAfter] = "1"
                return response
            } catch {
                return try JSONReply.error(.serviceUnavailable, "\(error)")
            }
            var reply = CaptureReply(
                id: taken.proxy.lastPathComponent, files: [taken.proxy.path], width: taken.size.width,
                height: taken.size.height, frameSequence: taken.frameSequence, frameTimestamp: taken.frameTimestamp,
                pressTime: taken.pressTime, quality: taken.quality.rawValue, state: "processing",
                pressToFrameSeconds: taken.pressToFrameSeconds, pressToProxySeconds: taken.pressToProxySeconds, notes: [:])
            guard wanted.wait == "final" else { return try JSONReply.ok(reply) }
            do {
                let result = try await taken.result()
                reply.id = result.output.lastPathComponent
                reply.files = [result.output.path] + result.auxiliaryOutputs.map(\.path)
                reply.state = "final"
                reply.shutterToFileSeconds = result.shutterToFileSeconds
                reply.notes = result.notes.merging(result.absenceReasons) { note, _ in note }
                reply.livePhoto = settings.livePhotoContentIdentifier == nil ? nil : result.livePhotoMovie.map(\.path)
                reply.livePhotoError = result.livePhotoError
                return try JSONReply.ok(reply)
            } catch {
                return try JSONReply.error(.internalServerError, "\(error); the photo as taken is kept at \(taken.proxy.path)")
            }
        }

        router.post("/api/live") { request, context -> Response in
            let wanted = try await JSONReply.decode(LiveRequest.self, from: request, context: context)
            do { try await self.session.setLivePhotoCaptureEnabled(wanted.enabled) } catch {
                return try JSONReply.error(.conflict, "\(error)")
            }
            return try JSONReply.ok(await self.status())
        }

        router.post("/api/recording") { request, context -> Response in
            let wanted = try await JSONReply.decode(RecordingRequest.self, from: request, context: context)
            switch wanted.action {
            case "start":
                do {
                    let path = try await self.session.startRecording(mirrorsFrontCamera: wanted.mirrorFront ?? false)
                    return try JSONReply.ok(["path": path])
                } catch {
                    return try JSONReply.error(.conflict, "\(error)")
                }
            case "stop":
                guard let movie = await self.session.stopRecording() else {
                    return try JSONReply.error(.conflict, "no movie is being recorded")
                }
                return try JSONReply.ok(movie)
            default:
                return try JSONReply.error(.badRequest, "action is start or stop, not \(wanted.action)")
            }
        }

        router.post("/api/session/resume") { _, _ -> Response in
            do { try await self.session.startRunning() } catch {
                return try JSONReply.error(.conflict, "\(error)")
            }
            return try JSONReply.ok(await self.status())
        }
    }

    /// The camera's V4L2 controls, and tap to focus (UVC's region of interest).
    private func addControlRoutes(to router: Router<AppRequestContext>) {
        router.get("/api/controls") { _, _ -> Response in
            let camera = await self.currentCamera()
            do { return try JSONReply.controls(of: camera, try camera.controls()) } catch {
                return try JSONReply.error(.serviceUnavailable, "\(camera.path): cannot read the controls: \(error)")
            }
        }

        router.put("/api/controls") { request, context -> Response in
            let wanted = try await JSONReply.decode([String: ControlInput].self, from: request, context: context)
            let camera = await self.currentCamera()
            do {
                let controls = try camera.setControls(wanted.sorted { $0.key < $1.key }.map { ($0.key, $0.value.text) })
                return try JSONReply.controls(of: camera, controls)
            } catch let error as ControlError {
                return try JSONReply.error(.badRequest, error.description)
            }
        }

        router.post("/api/focus") { request, context -> Response in
            let point = try await JSONReply.decode(FocusRequest.self, from: request, context: context)
            guard (0...1).contains(point.x), (0...1).contains(point.y) else {
                return try JSONReply.error(.badRequest, "x and y are fractions of the frame, 0 to 1")
            }
            let camera = await self.currentCamera()
            let size = await self.session.configuration.size
            guard let rectangle = Self.regionOfInterest(at: point, in: size) else {
                return try JSONReply.error(.badRequest, "bad point")
            }
            do {
                let controls = try camera.setControls([("region_of_interest_rectangle", rectangle)])
                return try JSONReply.controls(of: camera, controls)
            } catch let error as ControlError {
                return try JSONReply.error(.conflict, "\(camera.name) cannot focus at a point: \(error.description)")
            }
        }
    }

    /// A replay camera unplugged, replugged or taken by another process, as a real one can be.
    private func addReplayRoutes(to router: Router<AppRequestContext>) {
        router.post("/api/replay/{action}") { request, context -> Response in
            let action = context.parameters.get("action") ?? ""
            let camera = await self.currentCamera()
            guard camera.isReplay, let bus = camera.backend.simulation else {
                return try JSONReply.error(.notFound, "\(camera.name) is not a replay camera; only those can be unplugged from here")
            }
            switch action {
            case "unplug": bus.unplug(camera)
            case "replug": bus.replug(camera)
            case "busy": bus.setBusyElsewhere(true, camera)
            case "free": bus.setBusyElsewhere(false, camera)
            default: return try JSONReply.error(.notFound, "replay cameras can be unplug, replug, busy or free, not \(action)")
            }
            return try JSONReply.ok(["camera": camera.id, "done": action])
        }
    }

    func status() async -> AppStatus {
        let current = await currentCamera()
        var infos: [CameraInfo] = []
        for camera in cameras where camera.problem == nil {
            infos.append(CameraInfo(
                id: camera.id, name: camera.name, position: camera.position.rawValue, replay: camera.isReplay,
                mirroredPreview: camera.position == .front, previewRotation: (360 - camera.sensorRotation % 360) % 360,
                tapToFocus: tapToFocusCameras.contains(camera.id)))
        }
        return AppStatus(
            cameras: infos, camera: current.id, session: events.status,
            deliverable: Deliverable(
                depth: deliverableRoles.contains(.depth) || deliverableRoles.contains(.disparity),
                portraitMatte: deliverableRoles.contains(.portraitMatte),
                semanticMattes: Self.semanticRoles.filter(deliverableRoles.contains).map(\.rawValue)),
            portraitSources: ImageRole.portraitEffectSources.map(\.rawValue),
            // Only what the pipeline honours: a HEIF stage leaves heic alone.
            formats: ["auto"] + ImageContainers.writable.map(\.name).filter { name in
                guard let format = OutputFormat(rawValue: name), let pipeline else { return true }
                return (try? pipeline.checkOutputFormat(format)) != nil
            },
            preview: preview.counters, livePhotos: await session.isLivePhotoCaptureEnabled,
            livePhotoPreRollBytes: await session.livePhotoPreRollBytes,
            livePhotoPreRollSeconds: await session.livePhotoPreRollSeconds,
            framesKept: await session.streamStatistics.kept)
    }

    func photoSettings(_ request: CaptureRequest) throws -> PhotoSettings {
        let quality: QualityPrioritization
        if let name = request.quality {
            guard let parsed = QualityPrioritization(rawValue: name) else {
                throw MatteboxError("quality is speed, balanced or quality, not \(name)")
            }
            quality = parsed
        } else {
            quality = .balanced
        }
        var format: String?
        if let name = request.format?.lowercased(), name != "auto" {
            guard let parsed = OutputFormat(rawValue: name) else {
                throw MatteboxError("format is auto or one of \(ImageContainers.writableNames), not \(name)")
            }
            // As the CLI does: a format the pipeline's HEIF stage would override is refused, naming the stage.
            try pipeline?.checkOutputFormat(parsed)
            format = parsed.rawValue
        }
        var settings = PhotoSettings(
            quality: quality, depthDelivery: request.depth ?? true, portraitMatteDelivery: request.portraitMatte ?? true,
            semanticMatteDelivery: request.semanticMattes == false ? [] : Set(Self.semanticRoles),
            mirrorsFrontCamera: request.mirrorFront ?? false)
        settings.outputFormat = format
        if request.live == true { settings.livePhotoContentIdentifier = UUID().uuidString }
        return settings
    }

    /// A rectangle an eighth of the frame wide and high around a tapped point, inside the frame.
    static func regionOfInterest(at point: FocusRequest, in size: FrameSize) -> String? {
        let width = max(16, size.width / 8), height = max(16, size.height / 8)
        let left = min(max(0, Int(point.x * Double(size.width)) - width / 2), size.width - width)
        let top = min(max(0, Int(point.y * Double(size.height)) - height / 2), size.height - height)
        return "\(left),\(top),\(width),\(height)"
    }
}

/// A control value as JSON gives it: a number, true/false, a menu entry's name, or a rectangle.
struct ControlInput: Decodable {
    var text: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            text = "\(number)"
        } else if let flag = try? container.decode(Bool.self) {
            text = flag ? "1" : "0"
        } else if let string = try? container.decode(String.self) {
            text = string
        } else {
            let r = try container.decode(ControlRectangle.self)
            text = "\(r.left),\(r.top),\(r.width),\(r.height)"
        }
    }
}

extension JSONReply {
    /// A camera's controls, as GET/PUT /api/controls and /api/focus answer.
    static func controls(of camera: CameraDevice, _ controls: [CameraControl]) throws -> Response {
        struct Reply: Encodable {
            var camera: String
            var controls: [CameraControl]
        }
        return try ok(Reply(camera: camera.id, controls: controls))
    }
}
