import Foundation
import MatteboxCapture
import MatteboxCaptureService
import MatteboxCore
import MatteboxImageIO
import MatteboxImageOps
import MatteboxMovie
import MatteboxPressure
import MatteboxRuntime
import MatteboxTestSupport
import Testing

/// Movies and Live Photos from the emulated cameras, through the real FFmpeg
/// encoder, read back by ffprobe and exiftool.
@Suite(.serialized) struct MovieRecordingTests {
    private func finished(_ log: EventLog, timeout: Double = waitLimit) async -> RecordedMovie? {
        _ = await log.wait(timeout) { if case .didFinishRecording = $0 { return true } else { return false } }
        for case .didFinishRecording(let movie) in log.all { return movie }
        return nil
    }

    /// A streaming session on the rig's back camera, recording a movie.
    private func recording() async throws -> (CaptureRig, CaptureSession, EventLog, path: String) {
        let rig = try CaptureRig()
        let session = try rig.session(pipeline: nil, movies: MovieFileOutput(directory: rig.output))
        let log = EventLog(session)
        try await session.startRunning()
        try await Task.sleep(for: .milliseconds(200))
        let path = try await session.startRecording()
        return (rig, session, log, path)
    }

    /// Waits (by frames, not by the clock, so a loaded machine does not change the test) until `count` more are
    /// kept; a stream that stalls fails the test after the wait limit instead of hanging the suite.
    private func waitForFrames(_ count: Int, _ session: CaptureSession) async throws {
        let target = await session.streamStatistics.kept + count
        let reached = await eventually { await session.streamStatistics.kept >= target }
        try #require(reached, "\(count) more frames within \(waitLimit) s")
    }

    @Test func dropsMakeLongerFramesNotAFasterMovie() async throws {
        let (rig, session, log, path) = try await recording()
        #expect(await log.wait { $0 == .willBeginRecording(path: path) })
        try await waitForFrames(15, session)
        rig.io.inject(.droppedFrames(6), CaptureRig.back)
        try await waitForFrames(20, session)
        let movie = try #require(await session.stopRecording())
        await session.stopRunning()

        #expect(movie.complete && movie.ending == .stopped && movie.path == path, "\(movie)")
        #expect(!FileManager.default.fileExists(atPath: path.replacingOccurrences(of: ".mp4", with: ".recording.mp4")))
        let probe = try MovieProbe.read(path)
        #expect(probe.codec == "h264" && probe.width == 640 && probe.height == 480)
        #expect(probe.frames == movie.frames && probe.frames >= 35)
        let times = probe.presentationTimes
        #expect(times.count == probe.frames)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 < $1 }, "timestamps increase")
        let longest = zip(times, times.dropFirst()).map { $1 - $0 }.max() ?? 0
        #expect(longest >= 6.0 / 30, "the lost frames make one long frame (\(longest) s)")
        let span = (times.last ?? 0) - (times.first ?? 0)
        #expect(Double(probe.frames) <= span * 30 - 4, "\(probe.frames) frames over \(span) s: the movie is not sped up")
        #expect(abs(probe.duration - (span + 1.0 / 30)) <= 1.0 / 30, "duration \(probe.duration) within a frame of the capture span")
        // The back camera is mounted turned 90° (counter-clockwise to upright): container metadata, not pixels.
        #expect(probe.rotation.map { (Int($0) % 360 + 360) % 360 } == 90, "\(String(describing: probe.rotation))")
    }

    @Test func anUnplugFinishesTheMovieAndSaysWhy() async throws {
        let (rig, session, log, _) = try await recording()
        try await waitForFrames(36, session)
        await #expect(throws: MatteboxError.self, "no camera switch while recording") {
            try await session.switchCamera(to: try #require(rig.cameras.first { $0.path == CaptureRig.front }))
        }
        rig.io.unplug(CaptureRig.back)
        let movie = try #require(await finished(log))
        #expect(movie.ending == .deviceRemoved && movie.complete, "\(movie)")
        #expect(await log.wait { $0 == .interrupted(.videoDeviceNotAvailable) })
        let probe = try MovieProbe.read(movie.path)
        #expect(probe.frames >= 25 && probe.frames == movie.frames)
        await session.stopRunning()
    }

    @Test func aRecordingKeepsItsFrameRateUnderPressureAndShutdownFinishesItFirst() async throws {
        let (_, session, log, _) = try await recording()
        await session.apply(.serious)
        try await waitForFrames(24, session) // long enough for a throttle to have dropped some
        #expect(await session.streamStatistics.throttled == 0, "no frame dropped for pressure while recording")
        #expect(!log.all.contains(.frameRate(20)))
        let first = try #require(await session.stopRecording())
        #expect(first.complete)
        // The throttle that waited for the movie comes now.
        #expect(await log.wait { $0 == .frameRate(20) })

        try await session.startRecording()
        try await Task.sleep(for: .milliseconds(500))
        await session.apply(.shutdown)
        #expect(await log.wait { $0 == .interrupted(.videoDeviceNotAvailableDueToSystemPressure) })
        let events = log.all
        let finishedAt = events.firstIndex { if case .didFinishRecording(let movie) = $0 { return movie.ending == .systemPressure } else { return false } }
        let interruptedAt = events.firstIndex(of: .interrupted(.videoDeviceNotAvailableDueToSystemPressure))
        #expect(finishedAt != nil && interruptedAt != nil && finishedAt! < interruptedAt!, "the movie is finished before the camera stops")
        await session.stopRunning()
    }

    @Test func overlappingLivePhotosPairStillAndMovie() async throws {
        let rig = try CaptureRig()
        let session = try rig.session(pipeline: nil, format: .heic, movies: MovieFileOutput(directory: rig.output))
        let log = EventLog(session)
        try await session.startRunning()
        try await session.setLivePhotoCaptureEnabled(true)
        try await waitForFrames(51, session) // the 1.5 s pre-roll filled
        var first = PhotoSettings(quality: .speed)
        first.livePhotoContentIdentifier = UUID().uuidString
        async let one = session.capturePhoto(first)
        try await Task.sleep(for: .milliseconds(400))
        var second = PhotoSettings(quality: .speed)
        second.livePhotoContentIdentifier = UUID().uuidString
        async let two = session.capturePhoto(second)
        let results = try await [one, two]
        let preRoll = await session.livePhotoPreRollBytes
        await session.stopRunning()

        #expect(log.all.contains(.livePhotoCapturesInProgress(2)), "the two Live Photos overlapped")
        #expect(log.all.last { if case .livePhotoCapturesInProgress = $0 { return true } else { return false } } == .livePhotoCapturesInProgress(0))
        #expect(preRoll > 0 && preRoll < 8_000_000, "pre-roll holds \(preRoll) bytes")
        for (result, settings) in zip(results, [first, second]) {
            let identifier = try #require(settings.livePhotoContentIdentifier)
            let movie = try #require(result.livePhotoMovie.first, "\(String(describing: result.livePhotoError))")
            #expect(movie.pathExtension == "mov" && movie.deletingPathExtension() == result.output.deletingPathExtension())
            #expect(result.output.pathExtension == "heic")
            // exiftool 12.57 names Apple's maker-note tag 0x0011 MediaGroupUUID (ContentIdentifier before 12.19).
            #expect(MovieProbe.exiftool("MakerNotes:MediaGroupUUID", result.output.path) == identifier)
            #expect(MovieProbe.exiftool("Keys:ContentIdentifier", movie.path) == identifier)
            #expect(MovieProbe.exiftool("StillImageTime", movie.path, embedded: true) == "-1")
            let probe = try MovieProbe.read(movie.path)
            #expect(probe.streamTags.contains("mebx"))
            #expect(abs(probe.duration - 3.0) < 0.25, "about 1.5 s either side: \(probe.duration)")
            // The still's frame time (the marked sample's time) lies inside the movie, about 1.5 s in.
            let sampleTimes = MovieProbe.exiftool("SampleTime", movie.path, embedded: true).split(separator: "\n")
            let stillTime = try #require(sampleTimes.last.flatMap { Double($0.replacingOccurrences(of: " s", with: "")) })
            #expect(stillTime > 1.2 && stillTime < 1.6 && stillTime < probe.duration,
                    "still at \(stillTime) s; frame \(result.frameSequence) at \(Double(Int64(result.frameTimestamp) - Int64(settings.pressTime)) / 1e9) s from the press")
            #expect(probe.presentationTimes.contains { abs($0 - stillTime) < 0.012 }, "a movie frame sits at the still's time")
        }
    }

    @Test func aMotionPhotoCarriesItsMovieWhereItsXMPSays() async throws {
        let rig = try CaptureRig(fourcc: .yuyv)
        let session = try rig.session(
            pipeline: nil, format: .jpeg, movies: MovieFileOutput(directory: rig.output, livePhotoFormat: .motionPhoto))
        try await session.setFormat(.yuyv, size: FrameSize(width: 640, height: 480))
        try await session.startRunning()
        try await session.setLivePhotoCaptureEnabled(true)
        try await waitForFrames(51, session) // the 1.5 s pre-roll filled
        let rawBytes = 45 * 640 * 480 * 2
        let preRoll = await session.livePhotoPreRollBytes
        #expect(preRoll > 0 && preRoll < rawBytes / 4, "YUYV frames are kept as JPEGs: \(preRoll) bytes")
        var settings = PhotoSettings(quality: .speed)
        settings.livePhotoContentIdentifier = UUID().uuidString
        let result = try await session.capturePhoto(settings)
        await session.stopRunning()

        let motionPhoto = try #require(result.livePhotoMovie.first, "\(String(describing: result.livePhotoError))")
        #expect(motionPhoto.lastPathComponent.hasSuffix(".MP.jpg"))
        #expect(!FileManager.default.fileExists(atPath: result.output.path), "the plain still became the Motion Photo")
        #expect(MovieProbe.exiftool("XMP-GCamera:MotionPhoto", motionPhoto.path) == "1")
        let lengths = MovieProbe.exiftool("DirectoryItemLength", motionPhoto.path).split(whereSeparator: { $0 == "," || $0 == "\n" }).map {
            Int($0.trimmingCharacters(in: .whitespaces)) ?? -1
        }
        let length = try #require(lengths.last)
        let bytes = try Data(contentsOf: motionPhoto)
        #expect(length > 0 && length < bytes.count)
        let movie = rig.output.appendingPathComponent("embedded.mp4")
        try bytes.suffix(length).write(to: movie)
        let probe = try MovieProbe.read(movie.path)
        #expect(probe.codec == "h264" && probe.frames > 60)
        let presentation = try #require(Double(MovieProbe.exiftool("MotionPhotoPresentationTimestampUs", motionPhoto.path)))
        #expect(presentation > 0 && presentation / 1e6 < probe.duration)
        // The still is still the JPEG a viewer shows, with the content identifier.
        let decoded = try ImageContainers.reader(for: motionPhoto).readPhoto(at: motionPhoto)
        #expect(decoded.primary.width == 640)
        #expect(MovieProbe.exiftool("MakerNotes:MediaGroupUUID", motionPhoto.path) == settings.livePhotoContentIdentifier)
    }

    @Test func livePhotosNeedThePreRollOn() async throws {
        let rig = try CaptureRig()
        let session = try rig.session(pipeline: nil, format: .jpeg, movies: MovieFileOutput(directory: rig.output))
        try await session.startRunning()
        var settings = PhotoSettings(quality: .speed)
        settings.livePhotoContentIdentifier = UUID().uuidString
        await #expect(throws: MatteboxError.self) { try await session.capturePhoto(settings) }
        await session.stopRunning()
        let plain = try rig.session(pipeline: nil)
        await #expect(throws: MatteboxError.self) { try await plain.setLivePhotoCaptureEnabled(true) }
    }
}
