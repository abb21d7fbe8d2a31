import Foundation
import MatteboxCore
import MatteboxPressure
import MatteboxRuntime

/// The shutter: a frame chosen for the press (zero shutter lag, or the next
/// frame at the largest size for quality), handed to the delivery with a
/// bounded number of photos in flight.
extension CaptureSession {
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

    func chooseFrame(_ settings: PhotoSettings, quality: QualityPrioritization, loop: StreamLoop) async throws
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
    func frameAtPress(_ press: UInt64, period: UInt64) async throws -> CapturedFrame {
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
    func captureAtLargestSize() throws -> (CapturedFrame, any FrameDecoder)? {
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

    func photoDone() {
        photosInFlight -= 1
        if !slotWaiters.isEmpty { slotWaiters.removeFirst().resume() }
        if photosInFlight == 0 {
            for waiter in drainWaiters { waiter.resume() }
            drainWaiters = []
        }
        setReadiness()
    }

    func drainPhotos() async {
        guard photosInFlight > 0 else { return }
        await withCheckedContinuation { drainWaiters.append($0) }
    }
}
