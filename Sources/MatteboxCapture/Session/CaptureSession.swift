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
    private let eventSink: AsyncStream<CaptureEvent>.Continuation
    package let cameras: [CameraDevice]
    package private(set) var configuration: Configuration
    package private(set) var state = State.idle
    package private(set) var readiness = CaptureReadiness.sessionNotRunning
    package private(set) var pressure = PressureLevel.nominal

    private var pending: Configuration?
    var loop: StreamLoop?
    private let ring: FrameRing
    private let preview = PreviewFanout()
    private let delivery: any PhotoDelivery
    let movieOutput: (any MovieOutput)?
    let taps = FrameTaps()
    var recording: (any MovieRecording)?
    var recordingWatch: Task<Void, Never>?
    var livePhotoPreRoll: LivePhotoPreRoll?
    var livePhotosInProgress = 0
    /// The frame rate is held down for system pressure (not while a movie records).
    private var throttled = false
    private let maxPhotosInFlight: Int
    private var photosInFlight = 0
    private var slotWaiters: [CheckedContinuation<Void, Never>] = []
    private var drainWaiters: [CheckedContinuation<Void, Never>] = []
    private var recovery: Task<Void, Never>?
    private var governor: Task<Void, Never>?
    private let monitor: PressureMonitor?
    private let policy: PressurePolicy
    private var throttledSince: Date?
    private var busyCapturing = false

    package init(
        cameras: [CameraDevice], camera: CameraDevice? = nil, delivery: any PhotoDelivery, movieOutput: (any MovieOutput)? = nil,
        pressureMonitor: PressureMonitor? = nil, pressurePolicy: PressurePolicy = PressurePolicy(), maxPhotosInFlight: Int = 3,
        ringCapacity: Int = 6
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
        self.maxPhotosInFlight = max(1, maxPhotosInFlight)
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

    private func stage(_ next: Configuration) throws {
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

    private func restartLoop(framesPerSecond: Double? = nil) throws {
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

    private func stopLoop() {
        loop?.stop()
        loop = nil
        ring.removeAll()
        taps.streamStopped()
    }

    private func effectiveFrameRate() -> Double? {
        guard throttled else { return configuration.framesPerSecond }
        let offered = configuration.camera.formats.first { $0.fourcc == configuration.fourcc }?
            .sizes.first { $0.frameSize == configuration.size }?.framesPerSecond ?? []
        // The fastest offered rate within the throttle, else the slowest offered.
        return offered.filter { $0 <= policy.throttledFramesPerSecond }.max() ?? offered.min() ?? policy.throttledFramesPerSecond
    }

    private func streamEnded(_ ended: StreamLoop, _ error: (any Error)?) {
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

    private func interrupt(_ reason: InterruptionReason) {
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
    private func scheduleRecovery() {
        recovery?.cancel()
        recovery = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                guard let self, await self.tryResume() else { continue }
                return
            }
        }
    }

    private func tryResume() -> Bool {
        if case .interrupted(.videoDeviceNotAvailableDueToSystemPressure) = state { return true }
        guard state != .stopped else { return true }
        do { try restartLoop() } catch { return false }
        let wasInterrupted = state != .running
        state = .running
        if wasInterrupted { emit(.interruptionEnded) }
        setReadiness()
        return true
    }

    // MARK: System pressure

    private func startGovernor() {
        guard let monitor, governor == nil else { return }
        let interval = policy.sampleInterval
        governor = Task { [weak self] in
            while !Task.isCancelled {
                let level = monitor.sample().level
                guard let self else { return }
                await self.apply(level)
                try? await Task.sleep(for: .seconds(interval))
            }
        }
    }

    /// Acts on a pressure level: throttle at once by dropping frames, then
    /// reprogram the device's interval once the level holds; stop at
    /// shutdown after the photos in flight; resume when it falls.
    package func apply(_ level: PressureLevel) async {
        let previous = pressure
        if level != previous {
            pressure = level
            emit(.systemPressure(level))
        }
        if level == .shutdown {
            guard state == .running else { return }
            await stopRecording(.systemPressure)
            state = .interrupted(.videoDeviceNotAvailableDueToSystemPressure)
            emit(.interrupted(.videoDeviceNotAvailableDueToSystemPressure))
            setReadiness()
            await drainPhotos()
            stopLoop()
            return
        }
        if case .interrupted(.videoDeviceNotAvailableDueToSystemPressure) = state {
            do {
                try restartLoop()
                state = .running
                emit(.interruptionEnded)
                setReadiness()
            } catch {
                scheduleRecovery()
            }
            return
        }
        guard state == .running, let loop else { return }
        // As AVCam: a movie being recorded keeps its frame rate; the throttle waits for it to end.
        if level >= .serious, recording == nil {
            if !throttled {
                throttled = true
                loop.limitFrameRate(to: policy.throttledFramesPerSecond)
                emit(.frameRate(min(policy.throttledFramesPerSecond, loop.interval?.framesPerSecond ?? 30)))
                throttledSince = Date()
            }
            let deviceRate = loop.interval?.framesPerSecond ?? 0
            if let since = throttledSince, Date().timeIntervalSince(since) >= policy.reprogramAfter,
                deviceRate > policy.throttledFramesPerSecond + 0.5, !busyCapturing, photosInFlight == 0
            {
                try? restartLoop()
            }
        } else if level < .serious, throttled {
            throttled = false
            throttledSince = nil
            loop.limitFrameRate(to: nil)
            if !busyCapturing, recording == nil { try? restartLoop() }
        }
    }

    /// The auxiliary images pressure turns off, and the reason photos record.
    private var pressureSkips: (roles: Set<ImageRole>, reason: String) {
        switch pressure {
        case .serious:
            return ([.depth, .disparity], "depth off under serious system pressure")
        case .critical, .shutdown:
            return ([.depth, .disparity, .portraitMatte, .hairMatte, .skinMatte, .teethMatte, .glassesMatte, .skyMatte],
                    "depth and mattes off under critical system pressure")
        default:
            return ([], "")
        }
    }

    // MARK: Photos

    /// Takes a photo: the frame at the shutter press (zero shutter lag), or for
    /// `quality` a still at the camera's largest size; then the delivery (pipeline and
    /// file). Waits while `maxPhotosInFlight` photos are being processed.
    package func capturePhoto(_ settings: PhotoSettings = PhotoSettings()) async throws -> CaptureResult {
        while photosInFlight >= maxPhotosInFlight {
            await withCheckedContinuation { slotWaiters.append($0) }
        }
        guard state == .running, let loop else {
            throw MatteboxError("cannot take a photo: the session is \(stateDescription)")
        }
        photosInFlight += 1
        setReadiness()
        defer { photoDone() }
        let id = settings.uniqueID
        emit(.photo(id: id, .willBeginCapture))
        // Under pressure, while recording and for Live Photos no format switch: quality is capped at balanced.
        let noSwitch = pressure >= .serious || recording != nil || settings.livePhotoContentIdentifier != nil
        let quality = noSwitch && settings.quality == .quality ? .balanced : settings.quality
        let live = try startLivePhoto(settings)
        let chosen: (frame: CapturedFrame, decoder: any FrameDecoder)
        do {
            chosen = try await chooseFrame(settings, quality: quality, loop: loop)
        } catch {
            emit(.photo(id: id, .didFinish(output: nil, error: "\(error)")))
            cancelLivePhoto(live)
            throw error
        }
        emit(.photo(id: id, .willCapture(frameSequence: chosen.frame.sequence)))
        var skips = pressureSkips
        skips.roles.formUnion(settings.undeliveredRoles)
        if skips.reason.isEmpty { skips.reason = "not requested in the photo settings" }
        let job = PhotoJob(
            frame: chosen.frame, decoder: chosen.decoder, camera: configuration.camera, settings: settings,
            quality: quality, pressure: pressure, skippedRoles: skips.roles, skipReason: skips.reason, delivery: delivery,
            cameraSettings: self.loop?.stream.currentSettings() ?? CameraSettings())
        let sink = eventSink
        do {
            var result = try await Task.detached {
                try job.run { sink.yield(.photo(id: id, .didFinishProcessing)) }
            }.value
            emit(.photo(id: id, .didFinish(output: result.output.path, error: nil)))
            if let live {
                (result.livePhotoMovie, result.livePhotoError) = await finishLivePhoto(
                    live, photoID: id, stillTimestamp: chosen.frame.timestamp, still: result.output)
            }
            return result
        } catch {
            emit(.photo(id: id, .didFinish(output: nil, error: "\(error)")))
            cancelLivePhoto(live)
            throw error
        }
    }

    private func chooseFrame(_ settings: PhotoSettings, quality: QualityPrioritization, loop: StreamLoop) async throws
        -> (CapturedFrame, any FrameDecoder)
    {
        let period = UInt64(loop.frameSeconds * 1e9)
        // A larger still size is worth a format switch; without one, quality is balanced.
        if quality == .quality, let still = try captureAtLargestSize() { return still }
        let candidates = ring.frames(within: 2 * period + period / 2, before: settings.pressTime)
        guard quality != .speed, candidates.count > 1 else {
            return (try await frameAtPress(settings.pressTime, period: period), loop.decoder)
        }
        // Balanced: the sharpest good frame of the two periods up to the press, each decoded once.
        let decoder = loop.decoder
        let scored = candidates.map { frame in (frame, (try? decoder.rgbImage(of: frame)).map(Sharpness.score) ?? -1) }
        return (scored.max { $0.1 < $1.1 }!.0, decoder)
    }

    /// The latest frame exposed at or before the press. Only when the ring
    /// holds nothing that old (the stream just started) is the first frame
    /// after it taken.
    private func frameAtPress(_ press: UInt64, period: UInt64) async throws -> CapturedFrame {
        let ring = self.ring
        let known = ring.latest(atOrBefore: press)
        if let known, ring.snapshot.last.map({ $0.timestamp <= press }) ?? false {
            // Nothing after the press has arrived yet, so the frame being exposed at the press may still
            // be in the driver's queue: wait for the next frame (normally within one period), and so
            // never take an older frame than the one the user saw. A machine so loaded that the ring
            // has moved past the press by the time this resumes gets the frame known before waiting.
            let wait = max(0.25, 3 * Double(period) / 1e9)
            _ = await Task.detached { ring.firstFrame(after: press, timeout: wait) }.value
            return ring.latest(atOrBefore: press) ?? known
        }
        if let frame = known { return frame }
        let waited = await Task.detached { ring.firstFrame(after: press, timeout: 2) }.value
        guard let frame = waited else {
            throw MatteboxError("\(configuration.camera.path): no frame arrived within 2 s of the shutter press")
        }
        return frame
    }

    /// `quality`: stop the preview stream, stream at the largest size, let
    /// exposure settle for a few frames, keep the first good one, and go back
    /// to the preview format.
    private func captureAtLargestSize() throws -> (CapturedFrame, any FrameDecoder)? {
        let camera = configuration.camera
        guard let (fourcc, size) = camera.largestSize, size.pixels > configuration.size.pixels else { return nil }
        busyCapturing = true
        setReadiness()
        defer {
            busyCapturing = false
            setReadiness()
        }
        stopLoop()
        defer { try? restartLoop() }
        let stillRing = FrameRing(capacity: 2)
        let still = try StreamLoop(
            camera: camera, fourcc: fourcc, size: size, framesPerSecond: nil, ring: stillRing, preview: PreviewFanout())
        defer { still.stop() }
        var seen = 0
        let settleFrames = 3
        let deadline = Date(timeIntervalSinceNow: 3)
        while Date() < deadline {
            guard let frame = try still.stream.nextFrame(timeoutMilliseconds: 500) else { continue }
            seen += 1
            if seen > settleFrames, frame.defect == nil { return (frame, still.decoder) }
        }
        throw MatteboxError("\(camera.path): no good frame at \(size.description) within 3 s")
    }

    private func photoDone() {
        photosInFlight -= 1
        if !slotWaiters.isEmpty { slotWaiters.removeFirst().resume() }
        if photosInFlight == 0 {
            for waiter in drainWaiters { waiter.resume() }
            drainWaiters = []
        }
        setReadiness()
    }

    private func drainPhotos() async {
        guard photosInFlight > 0 else { return }
        await withCheckedContinuation { drainWaiters.append($0) }
    }

    // MARK: Reporting

    private func setReadiness() {
        let next: CaptureReadiness =
            state != .running ? .sessionNotRunning
            : busyCapturing ? .notReadyMomentarily
            : photosInFlight >= maxPhotosInFlight ? .notReadyWaitingForCapture : .ready
        guard next != readiness else { return }
        readiness = next
        emit(.readiness(next))
    }

    private var stateDescription: String {
        switch state {
        case .idle: return "not started"
        case .running: return "running"
        case .stopped: return "stopped"
        case .interrupted(let reason): return "interrupted (\(reason.rawValue))"
        }
    }

    func emit(_ event: CaptureEvent) { eventSink.yield(event) }
}
