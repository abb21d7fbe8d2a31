import Foundation
import MatteboxCapture
import MatteboxPressure
import Synchronization

/// The session's timeline for the page: it reads the session's events once,
/// keeps what the page needs to draw at any moment (running or interrupted and
/// why, readiness, pressure, frame rate, camera, the last runtime error) and
/// sends every event, as JSON, to each open event stream (server-sent events).
final class EventHub: Sendable {
    /// What the page shows, at any moment.
    struct Status: Codable, Sendable {
        var state = "idle"
        /// AVCaptureSession.InterruptionReason's name, while interrupted.
        var interruption: String?
        var readiness = CaptureReadiness.sessionNotRunning.rawValue
        var pressure = PressureLevel.nominal.description
        var framesPerSecond: Double?
        var camera: String?
        var lastError: String?
        var photosInProgress = 0
        /// The photo queue: photos in flight, the memory they hold, the budget, and why the shutter is refused.
        var queue = CaptureQueueStatus()
        /// The movie being recorded, while one is.
        var recording: String?
        var livePhotosInProgress = 0
    }

    /// One event as the page reads it.
    struct Event: Codable, Sendable {
        var type: String
        var detail: String?
        var photo: Int64?
        var output: String?
        var status: Status
    }

    private let current = Mutex(Status())
    private let listeners: Subscribers<Event>

    init(maximumListeners: Int = 64) { listeners = Subscribers(limit: maximumListeners, keepingNewest: 64) }

    var maximumListeners: Int { listeners.limit }
    var status: Status { current.withLock { $0 } }

    /// Events from now on, starting with the current status; nil when too many listen.
    func subscribe() -> AsyncStream<Event>? { listeners.subscribe(first: Event(type: "status", status: status)) }

    func run(_ events: AsyncStream<CaptureEvent>) async {
        for await event in events { publish(event) }
    }

    /// Ends every event stream and admits no more (the server is shutting down).
    func finish() { listeners.finish() }

    func publish(_ event: CaptureEvent) {
        let message = current.withLock { status -> Event in
            var message = Event(type: "", status: status)
            switch event {
            case .started(let camera):
                status.state = "running"
                status.camera = camera
                status.interruption = nil
                message.type = "started"
            case .stopped:
                status.state = "stopped"
                message.type = "stopped"
            case .interrupted(let reason):
                status.state = "interrupted"
                status.interruption = reason.rawValue
                message.type = "interrupted"
                message.detail = reason.rawValue
            case .interruptionEnded:
                status.state = "running"
                status.interruption = nil
                message.type = "interruptionEnded"
            case .runtimeError(let error):
                status.lastError = error
                message.type = "runtimeError"
                message.detail = error
            case .cameraChanged(let camera):
                status.camera = camera
                message.type = "cameraChanged"
                message.detail = camera
            case .systemPressure(let level):
                status.pressure = level.description
                message.type = "systemPressure"
                message.detail = level.description
            case .frameRate(let rate):
                status.framesPerSecond = rate
                message.type = "frameRate"
            case .queue(let queue):
                status.queue = queue
                message.type = "queue"
                message.detail = queue.refusal
            case .readiness(let readiness):
                status.readiness = readiness.rawValue
                message.type = "readiness"
                message.detail = readiness.rawValue
            case .photo(let id, let step):
                message.photo = id
                switch step {
                case .willBeginCapture:
                    status.photosInProgress += 1
                    message.type = "willBeginCapture"
                case .willCapture(let sequence):
                    message.type = "willCapture"
                    message.detail = "frame \(sequence)"
                case .proxyWritten(let output):
                    message.type = "proxyWritten"
                    message.output = output
                case .willBeginProcessing(let economy):
                    message.type = "willBeginProcessing"
                    message.detail = economy
                case .didFinishProcessing:
                    message.type = "didFinishProcessing"
                case .finalWritten(let output):
                    message.type = "finalWritten"
                    message.output = output
                case .didFinish(let output, let error):
                    status.photosInProgress = max(0, status.photosInProgress - 1)
                    message.type = "didFinish"
                    message.output = output
                    message.detail = error
                case .didFinishRecordingLivePhotoMovie:
                    message.type = "didFinishRecordingLivePhotoMovie"
                case .didFinishProcessingLivePhotoMovie(let outputs, let error):
                    message.type = "didFinishProcessingLivePhotoMovie"
                    message.output = outputs.first
                    message.detail = error
                }
            case .willBeginRecording(let path):
                status.recording = path
                message.type = "willBeginRecording"
                message.output = path
            case .didFinishRecording(let movie):
                status.recording = nil
                message.type = "didFinishRecording"
                message.output = movie.path
                message.detail = movie.error ?? movie.ending.rawValue
            case .livePhotoCapturesInProgress(let count):
                status.livePhotosInProgress = count
                message.type = "livePhotoCapturesInProgress"
                message.detail = "\(count)"
            }
            message.status = status
            return message
        }
        listeners.send(message)
    }
}

extension EventHub {
    /// A keep-alive event, so proxies keep the stream open and dead clients are noticed.
    func ping() { listeners.send(Event(type: "ping", status: status)) }
}
