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
    }

    /// One event as the page reads it.
    struct Event: Codable, Sendable {
        var type: String
        var detail: String?
        var photo: Int64?
        var output: String?
        var status: Status
    }

    fileprivate struct State {
        var status = Status()
        var listeners: [UUID: AsyncStream<Event>.Continuation] = [:]
        var closed = false
    }

    fileprivate let state = Mutex(State())
    let maximumListeners: Int

    init(maximumListeners: Int = 64) { self.maximumListeners = maximumListeners }

    var status: Status { state.withLock { $0.status } }

    /// Events from now on, starting with the current status; nil when too many listen.
    func subscribe() -> AsyncStream<Event>? {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        let admitted = state.withLock { state -> Bool in
            guard !state.closed, state.listeners.count < maximumListeners else { return false }
            state.listeners[id] = continuation
            continuation.yield(Event(type: "status", status: state.status))
            return true
        }
        guard admitted else { return nil }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { $0.listeners[id] = nil } }
        return stream
    }

    func run(_ events: AsyncStream<CaptureEvent>) async {
        for await event in events { publish(event) }
    }

    /// Ends every event stream and admits no more (the server is shutting down).
    func finish() {
        let listeners = state.withLock { state in
            state.closed = true
            return Array(state.listeners.values)
        }
        for listener in listeners { listener.finish() }
    }

    func publish(_ event: CaptureEvent) {
        let (message, listeners) = state.withLock { state -> (Event, [AsyncStream<Event>.Continuation]) in
            var message = Event(type: "", status: state.status)
            switch event {
            case .started(let camera):
                state.status.state = "running"
                state.status.camera = camera
                state.status.interruption = nil
                message.type = "started"
            case .stopped:
                state.status.state = "stopped"
                message.type = "stopped"
            case .interrupted(let reason):
                state.status.state = "interrupted"
                state.status.interruption = reason.rawValue
                message.type = "interrupted"
                message.detail = reason.rawValue
            case .interruptionEnded:
                state.status.state = "running"
                state.status.interruption = nil
                message.type = "interruptionEnded"
            case .runtimeError(let error):
                state.status.lastError = error
                message.type = "runtimeError"
                message.detail = error
            case .cameraChanged(let camera):
                state.status.camera = camera
                message.type = "cameraChanged"
                message.detail = camera
            case .systemPressure(let level):
                state.status.pressure = level.description
                message.type = "systemPressure"
                message.detail = level.description
            case .frameRate(let rate):
                state.status.framesPerSecond = rate
                message.type = "frameRate"
            case .readiness(let readiness):
                state.status.readiness = readiness.rawValue
                message.type = "readiness"
                message.detail = readiness.rawValue
            case .photo(let id, let step):
                message.photo = id
                switch step {
                case .willBeginCapture:
                    state.status.photosInProgress += 1
                    message.type = "willBeginCapture"
                case .willCapture(let sequence):
                    message.type = "willCapture"
                    message.detail = "frame \(sequence)"
                case .didFinishProcessing:
                    message.type = "didFinishProcessing"
                case .didFinish(let output, let error):
                    state.status.photosInProgress = max(0, state.status.photosInProgress - 1)
                    message.type = "didFinish"
                    message.output = output
                    message.detail = error
                }
            }
            message.status = state.status
            return (message, Array(state.listeners.values))
        }
        for listener in listeners { listener.yield(message) }
    }
}

extension EventHub {
    /// A keep-alive event, so proxies keep the stream open and dead clients are noticed.
    func ping() {
        let (message, listeners) = state.withLock { state in
            (Event(type: "ping", status: state.status), Array(state.listeners.values))
        }
        for listener in listeners { listener.yield(message) }
    }
}
