import Foundation
import MatteboxCore
import MatteboxPressure
import MatteboxRuntime

/// The shutter, as AVCam's responsive capture: a press secures its frame
/// from the zero-shutter-lag ring at once, the photo as taken is written as a
/// proxy, and the processing is queued (one photo at a time, in press order)
/// so the next press need not wait. The queue is bounded by memory
/// (`PhotoQueue`); when presses come faster than processing, a photo with
/// others waiting behind it is processed with cheaper settings (`economy`),
/// except at `--priority quality`.
extension CaptureSession {
    /// The memory the photos waiting may hold: 256 MiB, about 69 photos at
    /// 1280×960 or 7 at 12 MP; a burst longer than that waits for processing.
    package static let defaultQueueMemory = 256 << 20

    /// What a photo at the current size holds while it waits.
    var photoBytes: Int { PhotoQueue.bytes(for: configuration.size) }

    package var queueStatus: CaptureQueueStatus { queue.status(photoBytes: photoBytes) }

    /// Takes a photo and waits for its final file (`takePhoto`, then its result).
    package func capturePhoto(_ settings: PhotoSettings = PhotoSettings()) async throws -> CaptureResult {
        try await takePhoto(settings).result()
    }

    /// Takes a photo: the frame at the shutter press (zero shutter lag), or for
    /// `quality` a still at the camera's largest size, written at once as a
    /// proxy; returns then, with the final photo's processing queued. Refused
    /// (`ShutterRefused`) only when the queue's memory is spent.
    package nonisolated func takePhoto(_ settings: PhotoSettings = PhotoSettings()) async throws -> TakenPhoto {
        // The ring's frames up to the press, held before the press waits its turn in the session:
        // a loaded machine can keep it waiting past the few frames the ring keeps.
        let held = Array(ring.frames(atOrBefore: settings.pressTime).suffix(3))
        return try await takePhoto(settings, held: held)
    }

    private func takePhoto(_ settings: PhotoSettings, held: [CapturedFrame]) async throws -> TakenPhoto {
        guard state == .running, let loop else {
            throw MatteboxError("cannot take a photo: the session is \(stateDescription)")
        }
        let id = settings.uniqueID
        let largest = settings.quality == .quality ? configuration.camera.largestSize?.1 : nil
        let bytes = PhotoQueue.bytes(for: max(largest ?? configuration.size, configuration.size))
        if let reason = queue.refusal(for: bytes) { throw ShutterRefused(reason: reason) }
        queue.admit(id, bytes: bytes)
        setReadiness()
        emit(.photo(id: id, .willBeginCapture))
        // Under pressure, while recording and for Live Photos no format switch: quality is capped at balanced.
        let noSwitch = pressure >= .serious || recording != nil || settings.livePhotoContentIdentifier != nil
        let quality = noSwitch && settings.quality == .quality ? .balanced : settings.quality
        let live: LivePhotoInFlight?
        let proxy: ProxyPhoto
        let frame: CapturedFrame
        let pressToFrame: Double
        do {
            live = try startLivePhoto(settings)
            do {
                let chosen = try await secureFrame(settings, quality: quality, loop: loop, held: held)
                frame = chosen.0
                pressToFrame = Double(MonotonicClock.now() &- settings.pressTime) / 1e9
                emit(.photo(id: id, .willCapture(frameSequence: frame.sequence)))
                var skips = pressureSkips
                skips.roles.formUnion(settings.undeliveredRoles)
                if skips.reason.isEmpty { skips.reason = "not requested in the photo settings" }
                let job = PhotoJob(
                    frame: frame, decoder: chosen.1, camera: configuration.camera, settings: settings, quality: quality,
                    pressure: pressure, skippedRoles: skips.roles, skipReason: skips.reason,
                    cameraSettings: self.loop?.stream.currentSettings() ?? CameraSettings())
                let delivery = self.delivery
                proxy = try await proxies.run { try delivery.writeProxy(try job.makePhoto()) }
            } catch {
                cancelLivePhoto(live)
                throw error
            }
        } catch {
            photoFinished(id, output: nil, error: error)
            throw error
        }
        emit(.photo(id: id, .proxyWritten(output: proxy.output.path)))
        let pressToProxy = Double(MonotonicClock.now() &- settings.pressTime) / 1e9
        let (delivery, sink) = (self.delivery, eventSink)
        let economise = settings.quality != .quality
        let final = Task { () async throws -> CaptureResult in
            var proxy = proxy
            proxy.captured.economy = await self.waitForTurn(id, economise: economise)
            do {
                let ready = proxy
                let delivered = try await self.processing.run {
                    try delivery.finish(ready) { sink.yield(.photo(id: id, .didFinishProcessing)) }
                }
                var result = CaptureResult(ready.captured, delivered, proxy: ready.output, pressToProxySeconds: pressToProxy)
                result.pressToFrameSeconds = pressToFrame
                if let live {
                    (result.livePhotoMovie, result.livePhotoError) = await self.finishLivePhoto(
                        live, photoID: id, stillTimestamp: frame.timestamp, still: result.output)
                }
                self.photoFinished(id, output: result.output, error: nil)
                return result
            } catch {
                self.photoFinished(id, output: nil, error: error)
                throw error
            }
        }
        return TakenPhoto(
            id: id, proxy: proxy.output, frameSequence: frame.sequence, frameTimestamp: frame.timestamp,
            pressTime: settings.pressTime, quality: quality, size: proxy.captured.size, pressToFrameSeconds: pressToFrame,
            pressToProxySeconds: pressToProxy,
            final: final)
    }

    /// Queues the proxies an earlier run wrote and did not finish (it was
    /// killed or crashed) behind the photos queued now; each ends with the
    /// same events as a photo taken now. Returns their final files' tasks.
    @discardableResult
    package func resumePending() -> [Task<URL, any Error>] {
        let (delivery, sink) = (self.delivery, eventSink)
        return delivery.pendingProxies().map { proxy in
            nextResumedID -= 1
            let id = nextResumedID
            queue.admit(id, bytes: 0)
            setReadiness()
            emit(.photo(id: id, .proxyWritten(output: proxy.path)))
            return Task { () async throws -> URL in
                _ = await self.waitForTurn(id, economise: false)
                do {
                    let output = try await self.processing.run {
                        try delivery.finishPending(proxy) { sink.yield(.photo(id: id, .didFinishProcessing)) }.output
                    }
                    self.photoFinished(id, output: output, error: nil)
                    return output
                } catch {
                    self.photoFinished(id, output: nil, error: error)
                    throw error
                }
            }
        }
    }

    /// Waits until every photo pressed before `id` is finished (press order,
    /// one at a time), then says whether to economise: fast-capture
    /// prioritisation, when `economise` and photos wait behind this one.
    func waitForTurn(_ id: Int64, economise: Bool) async -> String? {
        while let first = queue.photos.first?.id, first != id {
            await withCheckedContinuation { turnWaiters[id] = $0 }
        }
        let behind = queue.waiting(behind: id)
        let economy = economise && behind > 0
            ? "\(behind) photo\(behind == 1 ? " was" : "s were") waiting behind it" : nil
        emit(.photo(id: id, .willBeginProcessing(economy: economy)))
        return economy
    }

    /// The press's frame (`chooseFrame`), never one an earlier press took: two presses within one
    /// frame period (a double tap, two clients at once) get two frames, the second the next one.
    func secureFrame(_ settings: PhotoSettings, quality: QualityPrioritization, loop: StreamLoop, held: [CapturedFrame] = []) async throws
        -> (CapturedFrame, any FrameDecoder)
    {
        var chosen = try await chooseFrame(settings, quality: quality, loop: loop, held: held)
        let ring = self.ring, wait = Self.newFrameWait(loop.frameSeconds)
        while securedFrameTimes.contains(chosen.0.timestamp) {
            let taken = chosen.0.timestamp
            guard let next = await BlockingWork.run({ ring.firstFrame(after: taken, timeout: wait) }) else {
                throw MatteboxError(
                    "\(configuration.camera.path): no new frame within \(wait) s for a press in the same frame as one before it")
            }
            chosen.0 = next
        }
        securedFrameTimes.append(chosen.0.timestamp)
        if securedFrameTimes.count > 64 { securedFrameTimes.removeFirst(securedFrameTimes.count - 64) }
        return chosen
    }

    /// How long a press waits for a frame the ring does not hold yet before it fails: a stream
    /// delivers one each period, but a loaded machine (a batch beside the camera, two cores) can
    /// stall the stream's thread for a few hundred milliseconds, and failing a photo is worse than
    /// taking it late.
    static func newFrameWait(_ frameSeconds: Double) -> Double { max(2, 10 * frameSeconds) }

    func chooseFrame(_ settings: PhotoSettings, quality: QualityPrioritization, loop: StreamLoop, held: [CapturedFrame] = []) async throws
        -> (CapturedFrame, any FrameDecoder)
    {
        let period = UInt64(loop.frameSeconds * 1e9)
        // A larger still size is worth a format switch; without one, quality is balanced.
        if quality == .quality, let still = try captureAtLargestSize() { return still }
        // Frames held from before a format switch are not the stream's now.
        let held = held.filter { $0.format == loop.stream.format }
        let atPress = try await frameAtPress(settings.pressTime, period: period, held: held)
        let candidates = ring.frames(within: 2 * period, before: settings.pressTime, with: held)
        guard quality != .speed, candidates.count > 1 else { return (atPress, loop.decoder) }
        // Balanced: the sharper of the frame at the press and the one before it, each decoded once;
        // the newer when they score alike (max keeps the first of equals, and the newest comes first).
        let decoder = loop.decoder
        let scored = candidates.reversed().map { frame in (frame, (try? decoder.rgbImage(of: frame)).map(Sharpness.score) ?? -1) }
        return (scored.max { $0.1 < $1.1 }!.0, decoder)
    }

    /// The latest frame exposed at or before the press. When the ring (or the
    /// frames held at the press) holds one from within a frame period of the press, that is it (the next
    /// frame began after the press); otherwise the frame being exposed at the
    /// press may still be in the driver's queue, and it is waited for. Only
    /// when the ring holds nothing that old (the stream just started) is the
    /// first frame after the press taken.
    func frameAtPress(_ press: UInt64, period: UInt64, held: [CapturedFrame] = []) async throws -> CapturedFrame {
        let ring = self.ring
        let known = ring.latest(atOrBefore: press, with: held)
        if let known, press - known.timestamp < period { return known }
        if let known, ring.snapshot.last.map({ $0.timestamp <= press }) ?? false {
            // Wait for the next frame (normally within one period), and so never take an older frame than
            // the one the user saw. A machine so loaded that the ring has moved past the press by the time
            // this resumes gets the frame known before waiting.
            let wait = max(0.25, 3 * Double(period) / 1e9)
            _ = await BlockingWork.run { ring.firstFrame(after: press, timeout: wait) }
            return ring.latest(atOrBefore: press, with: held) ?? known
        }
        if let frame = known { return frame }
        let wait = Self.newFrameWait(Double(period) / 1e9)
        let waited = await BlockingWork.run { ring.firstFrame(after: press, timeout: wait) }
        guard let frame = waited else {
            throw MatteboxError("\(configuration.camera.path): no frame arrived within \(wait) s of the shutter press")
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

    func photoFinished(_ id: Int64, output: URL?, error: (any Error)?) {
        if let error { Log.emit(.warning, "\(error)") }
        if let output { emit(.photo(id: id, .finalWritten(output: output.path))) }
        emit(.photo(id: id, .didFinish(output: output?.path, error: error.map { "\($0)" })))
        queue.finish(id)
        if let next = queue.photos.first?.id, let waiter = turnWaiters.removeValue(forKey: next) { waiter.resume() }
        if queue.isEmpty {
            for waiter in drainWaiters { waiter.resume() }
            drainWaiters = []
        }
        setReadiness()
    }

    func drainPhotos() async {
        guard !queue.isEmpty else { return }
        await withCheckedContinuation { drainWaiters.append($0) }
    }
}
