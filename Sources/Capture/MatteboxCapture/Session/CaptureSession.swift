import Foundation
import MatteboxCore
import MatteboxPressure
import MatteboxRuntime

/// A camera session in the manner of AVCam's CaptureService: an actor, so
/// device configuration and capture never run on the caller's thread. It
/// streams from one camera into a zero-shutter-lag ring, takes photos with
/// settings and reports each step on an event timeline, switches cameras
/// (restoring the old one if the new one fails), rides out interruptions
/// (camera taken by another process, unplugged, runtime errors) and
/// resumes by itself, and follows system pressure: throttled frame rate and
/// no depth at serious, no mattes either at critical, stopped at shutdown.
/// With a `MovieOutput` it also records movies and Live Photos
/// (`CaptureSession+Movies.swift`); as in AVCam, the frame rate is not
/// throttled while a movie records, and shutdown finishes the movie first.
package actor CaptureSession {
    /// What the session streams: a camera, a format and size, and a frame rate.
    package struct Configuration: Sendable {
        package var camera: CameraDevice
        package var fourcc: FourCC
        package var size: FrameSize
        package var framesPerSecond: Double?

        /// The camera's first format at its largest size up to 1280 px wide (a preview-sized stream).
        package init(camera: CameraDevice) {
            self.camera = camera
            let format = camera.formats.first { $0.fourcc == .mjpeg } ?? camera.formats.first
            fourcc = format?.fourcc ?? .mjpeg
            let sizes = (format?.sizes ?? []).map(\.frameSize).sorted()
            size = sizes.last { $0.width <= 1280 } ?? sizes.first ?? FrameSize(width: 640, height: 480)
            framesPerSecond = format?.sizes.first { $0.frameSize == size }?.framesPerSecond.max()
        }
    }

    package enum State: Sendable, Equatable {
        case idle, running, interrupted(InterruptionReason), stopped
    }

    /// How the session reacts to pressure, and how fast it notices.
    package struct PressurePolicy: Sendable {
        /// The frame rate cap at serious and critical (AVCam: 15-20 fps).
        package var throttledFramesPerSecond = 20.0
        /// How long a throttle holds before the device's own interval is reprogrammed.
        package var reprogramAfter = 2.0
        package var sampleInterval = 1.0

        package init() {}
    }

    package nonisolated let events: AsyncStream<CaptureEvent>
    let eventSink: AsyncStream<CaptureEvent>.Continuation
    package let cameras: [CameraDevice]
    package internal(set) var configuration: Configuration
    package internal(set) var state = State.idle
    package internal(set) var readiness = CaptureReadiness.sessionNotRunning
    package internal(set) var pressure = PressureLevel.nominal

    var pending: Configuration?
    var loop: StreamLoop?
    let ring: FrameRing
    let preview = PreviewFanout()
    let delivery: any PhotoDelivery
    let movieOutput: (any MovieOutput)?
    let taps = FrameTaps()
    var recording: (any MovieRecording)?
    var recordingWatch: Task<Void, Never>?
    var livePhotoPreRoll: LivePhotoPreRoll?
    var livePhotosInProgress = 0
    /// The frame rate is held down for system pressure (not while a movie records).
    var throttled = false
    /// Photos secured and not yet finished, bounded by memory (`PhotoQueue`).
    var queue: PhotoQueue
    /// Where proxies are written, in press order, just below the stream's priority (a press's
    /// frame must arrive however busy the encoder is), and where photos are processed, one at a
    /// time, with the CPU nothing else wants (SCHED_IDLE): a burst's presses and proxies first.
    let proxies = BackgroundThread(name: "mattebox: proxies", priority: .nice(5))
    let processing = BackgroundThread(name: "mattebox: photo processing", priority: .idle)
    /// Photos waiting for their turn to be processed (press order, one at a time).
    var turnWaiters: [Int64: CheckedContinuation<Void, Never>] = [:]
    var nextResumedID: Int64 = -1
    var drainWaiters: [CheckedContinuation<Void, Never>] = []
    var recovery: Task<Void, Never>?
    var governor: Task<Void, Never>?
    let monitor: PressureMonitor?
    let policy: PressurePolicy
    var throttledSince: Date?
    var busyCapturing = false
    var lastQueueStatus = CaptureQueueStatus()
    /// The capture times of the frames presses secured lately: a press that would take one of them takes the next.
    var securedFrameTimes: [UInt64] = []

    package init(
        cameras: [CameraDevice], camera: CameraDevice? = nil, delivery: any PhotoDelivery, movieOutput: (any MovieOutput)? = nil,
        pressureMonitor: PressureMonitor? = nil, pressurePolicy: PressurePolicy = PressurePolicy(),
        queueMemory: Int = CaptureSession.defaultQueueMemory, ringCapacity: Int = 6
    ) throws {
        guard let chosen = camera ?? cameras.defaultCamera else {
            throw MatteboxError("no usable camera: run `mattebox devices` to see what was found and why")
        }
        self.cameras = cameras
        configuration = Configuration(camera: chosen)
        self.delivery = delivery
        self.movieOutput = movieOutput
        monitor = pressureMonitor
        policy = pressurePolicy
        queue = PhotoQueue(budget: queueMemory)
        ring = FrameRing(capacity: ringCapacity)
        (events, eventSink) = AsyncStream.makeStream(of: CaptureEvent.self)
    }

    // MARK: Configuration

    /// Changes made until `commitConfiguration` apply together.
    package func beginConfiguration() { pending = pending ?? configuration }

    /// Outside a begin/commit pair, changes apply at once.
    package func setCamera(_ camera: CameraDevice) throws {
        let current = pending ?? configuration
        try stage(current.camera.id == camera.id ? current : Configuration(camera: camera))
    }

    package func setFormat(_ fourcc: FourCC, size: FrameSize, framesPerSecond: Double? = nil) throws {
        var next = pending ?? configuration
        next.fourcc = fourcc
        next.size = size
        if let framesPerSecond { next.framesPerSecond = framesPerSecond }
        try stage(next)
    }

    func stage(_ next: Configuration) throws {
        let inBlock = pending != nil
        pending = next
        if !inBlock { try commitConfiguration() }
    }

    /// Applies the staged changes; when the new configuration cannot stream,
    /// the previous one is restored and the error thrown.
    package func commitConfiguration() throws {
        guard let next = pending else { return }
        pending = nil
        // As AVCam: no camera or format change while a movie records (its size and rate are set).
        if recording != nil, next.camera.id != configuration.camera.id || next.fourcc != configuration.fourcc || next.size != configuration.size {
            throw MatteboxError("cannot change the camera or its format while a movie is being recorded; stop the recording first")
        }
        let previous = configuration
        configuration = next
        guard state == .running else { return }
        do {
            try restartLoop()
            if previous.camera.id != next.camera.id { emit(.cameraChanged(camera: next.camera.id)) }
        } catch {
            configuration = previous
            try? restartLoop()
            throw error
        }
    }

    /// Switches to another camera, keeping the current one if the new one fails.
    package func switchCamera(to camera: CameraDevice) throws {
        beginConfiguration()
        try setCamera(camera)
        try commitConfiguration()
    }

    // MARK: Running

    /// Starts streaming. A camera in use elsewhere or missing interrupts the
    /// session, which then resumes by itself; no permission is an error.
    package func startRunning() throws {
        guard state != .running else { return }
        do {
            try restartLoop()
            state = .running
            emit(.started(camera: configuration.camera.id))
            setReadiness()
        } catch let error as any CameraFailure where error.isBusy || error.isGone {
            interrupt(error.isBusy ? .videoDeviceInUseByAnotherClient : .videoDeviceNotAvailable)
        }
        startGovernor()
    }

    /// Stops after the photos in flight are written.
    package func stopRunning() async {
        governor?.cancel()
        recovery?.cancel()
        governor = nil
        recovery = nil
        await stopRecording(.sessionStopped)
        await drainPhotos()
        stopLoop()
        state = .stopped
        setReadiness()
        preview.finishAll()
        emit(.stopped)
        eventSink.finish()
    }

    /// A live view: the newest converted frame, skipping any the consumer is too slow for.
    package nonisolated func previewFrames() -> AsyncStream<PreviewFrame> { preview.subscribe() }

    /// Frames kept, dropped as defective, dropped by throttling, and the kept rate.
    package var streamStatistics: (kept: Int, defective: Int, throttled: Int, framesPerSecond: Double) {
        let counters = loop?.statistics ?? .init()
        return (counters.kept, counters.defective, counters.throttled, counters.framesPerSecond)
    }

    /// The frame interval the camera itself runs at now.
    package var deviceFramesPerSecond: Double? { loop?.interval?.framesPerSecond }

    func restartLoop(framesPerSecond: Double? = nil) throws {
        stopLoop()
        let rate = framesPerSecond ?? effectiveFrameRate()
        let next = try StreamLoop(
            camera: configuration.camera, fourcc: configuration.fourcc, size: configuration.size, framesPerSecond: rate,
            ring: ring, preview: preview, taps: taps)
        next.limitFrameRate(to: throttled ? policy.throttledFramesPerSecond : nil)
        loop = next
        next.start { [weak self] error in
            guard let self else { return }
            Task { await self.streamEnded(next, error) }
        }
        emit(.frameRate(min(next.interval?.framesPerSecond ?? 30, rate ?? .infinity)))
    }

    func stopLoop() {
        loop?.stop()
        loop = nil
        ring.removeAll()
        taps.streamStopped()
    }

    func effectiveFrameRate() -> Double? {
        guard throttled else { return configuration.framesPerSecond }
        let offered = configuration.camera.formats.first { $0.fourcc == configuration.fourcc }?
            .sizes.first { $0.frameSize == configuration.size }?.framesPerSecond ?? []
        // The fastest offered rate within the throttle, else the slowest offered.
        return offered.filter { $0 <= policy.throttledFramesPerSecond }.max() ?? offered.min() ?? policy.throttledFramesPerSecond
    }

    func streamEnded(_ ended: StreamLoop, _ error: (any Error)?) {
        guard ended === loop, state == .running else { return }
        loop = nil
        ended.stop()
        ring.removeAll()
        taps.streamStopped()
        guard let error else { return }
        let failure = error as? any CameraFailure
        if failure?.isGone == true {
            interrupt(.videoDeviceNotAvailable)
        } else if failure?.isBusy == true {
            interrupt(.videoDeviceInUseByAnotherClient)
        } else {
            emit(.runtimeError("\(error)"))
            Log.emit(.warning, "\(error); restarting the stream")
            do { try restartLoop() } catch { scheduleRecovery() }
        }
    }

    func interrupt(_ reason: InterruptionReason) {
        stopLoop()
        if recording != nil {
            let ending: RecordingEnding = reason == .videoDeviceNotAvailableDueToSystemPressure ? .systemPressure : .deviceRemoved
            Task { await stopRecording(ending) }
        }
        state = .interrupted(reason)
        emit(.interrupted(reason))
        setReadiness()
        if reason != .videoDeviceNotAvailableDueToSystemPressure { scheduleRecovery() }
    }

    /// Tries to stream again every 250 ms until the camera is back.
    func scheduleRecovery() {
        recovery?.cancel()
        recovery = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                guard let self, await self.tryResume() else { continue }
                return
            }
        }
    }

    func tryResume() -> Bool {
        if case .interrupted(.videoDeviceNotAvailableDueToSystemPressure) = state { return true }
        guard state != .stopped else { return true }
        do { try restartLoop() } catch { return false }
        let wasInterrupted = state != .running
        state = .running
        if wasInterrupted { emit(.interruptionEnded) }
        setReadiness()
        return true
    }

    // MARK: Reporting

    func setReadiness() {
        let next: CaptureReadiness =
            state != .running ? .sessionNotRunning
            : busyCapturing ? .notReadyMomentarily
            : queue.refusal(for: photoBytes) != nil ? .notReadyWaitingForCapture : .ready
        let queueNow = queueStatus
        if queueNow != lastQueueStatus {
            lastQueueStatus = queueNow
            emit(.queue(queueNow))
        }
        guard next != readiness else { return }
        readiness = next
        emit(.readiness(next))
    }

    var stateDescription: String {
        switch state {
        case .idle: return "not started"
        case .running: return "running"
        case .stopped: return "stopped"
        case .interrupted(let reason): return "interrupted (\(reason.rawValue))"
        }
    }

    func emit(_ event: CaptureEvent) { eventSink.yield(event) }
}
