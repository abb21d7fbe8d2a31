import Foundation
import MatteboxCore
import MatteboxRuntime

/// Movies and Live Photos (AVCaptureMovieFileOutput, AVCapturePhotoOutput's
/// Live Photo capture): the session routes every kept frame through its
/// `FrameTaps` to the recording and the pre-roll; its `MovieOutput` writes
/// the files.
extension CaptureSession {
    /// How far a Live Photo reaches before and after the press (AVCam: about 1.5 s each way).
    package static let livePhotoSeconds = 1.5

    /// A Live Photo on its way: the press, its identifier, and what gathers its after-press frames.
    struct LivePhotoInFlight: Sendable {
        var press: UInt64
        var contentIdentifier: String
        var before: [CapturedFrame]
        var collector: LivePhotoCollector
        var mirrored: Bool
    }

    package var isRecording: Bool { recording != nil }

    /// Bytes the Live Photo pre-roll holds now (0 when Live Photo capture is off).
    package var livePhotoPreRollBytes: Int { taps.preRollBytes }
    /// How much time the pre-roll spans now: a Live Photo taken before it is full has a shorter movie.
    package var livePhotoPreRollSeconds: Double { taps.preRollSeconds }

    package var isLivePhotoCaptureEnabled: Bool { livePhotoPreRoll != nil }

    /// Turns Live Photo capture on (the pre-roll starts filling) or off
    /// (AVCapturePhotoOutput.isLivePhotoCaptureEnabled).
    package func setLivePhotoCaptureEnabled(_ enabled: Bool) throws {
        guard enabled != isLivePhotoCaptureEnabled else { return }
        if enabled {
            guard let movieOutput else { throw MatteboxError("Live Photos need a movie output; this session has none") }
            let preRoll = LivePhotoPreRoll(seconds: Self.livePhotoSeconds + 0.1)
            livePhotoPreRoll = preRoll
            taps.setPreRoll(preRoll) { movieOutput.compact($0) }
        } else {
            livePhotoPreRoll = nil
            taps.setPreRoll(nil, compact: nil)
        }
    }

    /// Starts recording a movie of what the camera streams; `maxSeconds` ends
    /// it by itself (with `durationReached`). Returns where the movie will be.
    @discardableResult
    package func startRecording(maxSeconds: Double? = nil, mirrorsFrontCamera: Bool = false) throws -> String {
        guard let movieOutput else { throw MatteboxError("this session has no movie output") }
        guard recording == nil else { throw MatteboxError("a movie is already being recorded") }
        guard state == .running, let loop else { throw MatteboxError("cannot record: the session is not streaming") }
        let camera = configuration.camera
        let request = RecordingRequest(
            camera: camera, format: loop.format, framesPerSecond: loop.interval?.framesPerSecond ?? 30,
            mirrored: mirrorsFrontCamera && camera.position == .front)
        let started = try movieOutput.startRecording(request) { [weak self] _ in
            // The file keeps what its fragments hold; finishing reports the error.
            Task { await self?.stopRecording(.failed) }
        }
        recording = started
        taps.setRecording(started, limit: maxSeconds) { [weak self] in
            Task { await self?.stopRecording(.durationReached) }
        }
        emit(.willBeginRecording(path: started.path))
        return started.path
    }

    /// Finishes the movie being recorded (nil when none is): the file is
    /// complete and renamed into place, or kept as it is with the reason.
    @discardableResult
    package func stopRecording(_ ending: RecordingEnding = .stopped) async -> RecordedMovie? {
        guard let finishing = recording else { return nil }
        recording = nil
        taps.setRecording(nil)
        let movie = await BlockingWork.run { finishing.finish(ending) }
        emit(.didFinishRecording(movie))
        if pressure >= .serious { await apply(pressure) }  // the throttle that waited for the movie
        return movie
    }

    // MARK: Live Photos

    func startLivePhoto(_ settings: PhotoSettings) throws -> LivePhotoInFlight? {
        guard let identifier = settings.livePhotoContentIdentifier else { return nil }
        guard let preRoll = livePhotoPreRoll else {
            throw MatteboxError("Live Photo capture is off: turn it on before the press (the pre-roll needs 1.5 s to fill)")
        }
        let span = UInt64(Self.livePhotoSeconds * 1e9)
        let press = settings.pressTime
        // The collector takes every frame from the movie's start that arrives from now on, so a frame
        // exposed before the press but still in the driver's queue (the still may be that frame) is
        // in the movie too; `finishLivePhoto` drops what the pre-roll already gave.
        let collector = LivePhotoCollector(after: press &- span, until: press + span)
        taps.add(collector)
        livePhotosInProgress += 1
        emit(.livePhotoCapturesInProgress(livePhotosInProgress))
        return LivePhotoInFlight(
            press: press, contentIdentifier: identifier, before: preRoll.frames(from: press &- span, through: press),
            collector: collector, mirrored: settings.mirrorsFrontCamera && configuration.camera.position == .front)
    }

    func cancelLivePhoto(_ live: LivePhotoInFlight?) {
        guard let live else { return }
        taps.remove(live.collector)
        livePhotosInProgress -= 1
        emit(.livePhotoCapturesInProgress(livePhotosInProgress))
    }

    /// Waits for the frames after the press, then has the movie output write the movie.
    func finishLivePhoto(_ live: LivePhotoInFlight, photoID: Int64, stillTimestamp: UInt64, still: URL) async -> ([URL], String?) {
        defer { cancelLivePhoto(live) }
        let collector = live.collector
        let after = await BlockingWork.run { collector.wait(timeout: Self.livePhotoSeconds + 2) }
        emit(.photo(id: photoID, .didFinishRecordingLivePhotoMovie))
        guard let movieOutput else { return ([], "no movie output") }
        let camera = configuration.camera
        let newest = live.before.last?.timestamp ?? 0
        let clip = LivePhotoClip(
            frames: live.before + after.filter { $0.timestamp > newest }, stillTimestamp: stillTimestamp, contentIdentifier: live.contentIdentifier, camera: camera,
            framesPerSecond: loop?.interval?.framesPerSecond ?? 30, mirrored: live.mirrored)
        do {
            let written = try await BlockingWork.run { try movieOutput.writeLivePhotoMovie(clip, still: still) }
            emit(.photo(id: photoID, .didFinishProcessingLivePhotoMovie(outputs: written.map(\.path), error: nil)))
            return (written, nil)
        } catch {
            emit(.photo(id: photoID, .didFinishProcessingLivePhotoMovie(outputs: [], error: "\(error)")))
            return ([], "\(error)")
        }
    }
}
