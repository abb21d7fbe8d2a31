import CV4L2
import Foundation
import MatteboxCapture
import MatteboxCore
import MatteboxImageIO
import MatteboxRuntime
import MatteboxTestSupport
import Testing

/// The real session code against emulated cameras, end to end: discovery,
/// photos through the built plugins to files, zero shutter lag, switching,
/// and each fault with its interruption and recovery.
@Suite(.serialized) struct CaptureSessionTests {
    @Test func discoveryFindsPositionsRotationAndStableIDs() throws {
        let rig = try CaptureRig()
        let cameras = rig.cameras
        #expect(cameras.map(\.path) == [CaptureRig.front, CaptureRig.back])
        let (front, back) = (cameras[0], cameras[1])
        #expect(front.position == .front && front.positionSource == "V4L2_CID_CAMERA_ORIENTATION")
        #expect(back.position == .back && back.positionSource == "sysfs physical_location")
        #expect(back.id == "by-id/usb-Acme_Back_Cam_42-video-index0")
        #expect(front.id == "bus/platform:Front Cam/Front Cam")
        #expect(back.sensorRotation == 90 && front.sensorRotation == 0)
        #expect(front.formats.map(\.fourcc) == [.mjpeg, .yuyv])
        #expect(front.formats[0].sizes.map(\.width) == [320, 640] && front.formats[0].sizes[0].framesPerSecond == [30, 20, 15])
        #expect(cameras.defaultCamera?.path == CaptureRig.back, "back first, as AVCam")
        rig.io.setAccessDenied(true, CaptureRig.front)
        let denied = rig.cameras.first { $0.path == CaptureRig.front }
        #expect(denied?.problem?.contains("video` group") == true)
        #expect(rig.cameras.defaultCamera?.path == CaptureRig.back)
    }

    @Test func zeroShutterLagTakesTheFrameAtThePressNeverALaterOne() async throws {
        let rig = try CaptureRig()
        let session = try rig.session(camera: rig.cameras[0])
        try await session.setFormat(.mjpeg, size: FrameSize(width: 320, height: 240))
        try await session.startRunning()
        // Frames before the press are needed: a few (and 100 ms of them) are in the ring.
        #expect(await eventually { await session.streamStatistics.kept >= 6 })
        for delay in [0.0, 0.1] {
            // A press 100 ms ago: newer frames exist, and must not be taken.
            let press = MonotonicClock.now() - UInt64(delay * 1e9)
            let result = try await session.capturePhoto(PhotoSettings(quality: .speed, pressTime: press))
            #expect(result.frameTimestamp <= press)
            #expect(press - result.frameTimestamp < UInt64(1e9 / 30) + 2_000_000, "the latest frame before the press")
            let photo = try ImageDecoder.decodePhoto(at: result.output)
            #expect(NumberedPictures.index(of: photo.primary) == Int(result.frameSequence) % 8, "the pixels are that frame's")
        }
        let balanced = try await session.capturePhoto(PhotoSettings(quality: .balanced))
        #expect(balanced.frameTimestamp <= balanced.pressTime && balanced.size.width == 320)
        let quality = try await session.capturePhoto(PhotoSettings(quality: .quality))
        #expect(quality.size == FrameSize(width: 640, height: 480), "quality switches to the largest size")
        #expect(try ImageDecoder.decodePhoto(at: quality.output).primary.width == 640)
        let keptAtPhoto = await session.streamStatistics.kept
        #expect(await eventually { await session.streamStatistics.kept > keptAtPhoto + 3 }, "the preview format streams again")
        await session.stopRunning()
    }

    /// Issue 57 (10): two presses at the same instant got the same frame as two files; the second
    /// takes the next frame.
    @Test func twoPressesAtOneInstantTakeTwoFrames() async throws {
        let rig = try CaptureRig()
        let session = try rig.session(camera: rig.cameras[0])
        try await session.setFormat(.mjpeg, size: FrameSize(width: 320, height: 240))
        try await session.startRunning()
        #expect(await eventually { await session.streamStatistics.kept >= 6 })
        let press = MonotonicClock.now()
        let results = try await withThrowingTaskGroup(of: CaptureResult.self) { group in
            for _ in 0..<2 { group.addTask { try await session.capturePhoto(PhotoSettings(quality: .speed, pressTime: press)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(results.map(\.frameSequence)).count == 2, "two presses, two frames: \(results.map(\.frameSequence))")
        #expect(Set(results.map(\.output)).count == 2)
        await session.stopRunning()
    }

    @Test func photosRunThroughThePipelineWithOrientationAndOverlap() async throws {
        let rig = try CaptureRig()
        let session = try rig.session(format: .jpeg)
        let log = EventLog(session)
        try await session.startRunning()
        #expect(await session.configuration.camera.path == CaptureRig.back)
        #expect(await eventually { await session.streamStatistics.kept >= 3 })
        let results = try await withThrowingTaskGroup(of: CaptureResult.self) { group in
            for _ in 0..<5 { group.addTask { try await session.capturePhoto(PhotoSettings(quality: .speed)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(results.map(\.output)).count == 5)
        for result in results {
            // The back camera's sensor is mounted at 90°: the orientation stage turns the pixels upright.
            let photo = try ImageDecoder.decodePhoto(at: result.output)
            #expect(photo.primary.width == 480 && photo.primary.height == 640)
            #expect(result.stages.map(\.plugin) == ["org.mattebox.orientation"])
            let steps = log.all.compactMap { event -> PhotoStep? in
                if case .photo(let id, let step) = event, id == result.id { return step }
                return nil
            }
            let output = result.output.path
            #expect(steps.count == 7 && steps.first == .willBeginCapture && steps[2] == .proxyWritten(output: output)
                && steps[4] == .didFinishProcessing && steps[5] == .finalWritten(output: output)
                && steps[6] == .didFinish(output: output, error: nil), "\(steps)")
        }
        // Processed one at a time in press order; those with photos waiting behind them at speed, the last not.
        let finished = log.all.compactMap { event -> Int64? in
            if case .photo(let id, .didFinish) = event { return id }
            return nil
        }
        #expect(finished == results.map(\.id).sorted())
        let economies = log.all.compactMap { event -> String?? in
            if case .photo(_, .willBeginProcessing(let economy)) = event { return economy }
            return nil
        }
        #expect(economies.count == 5 && economies.last! == nil && economies.dropLast().allSatisfy { $0 != nil })
        #expect(results.filter { $0.notes["capturePrioritisation"] != nil }.count == 4)
        await session.stopRunning()
        #expect(await log.wait { $0 == .stopped })
    }

    /// Fast-capture prioritisation never touches a photo taken at quality prioritisation.
    @Test func qualityPhotosAreNeverMadeAtSpeedHoweverManyWait() async throws {
        let rig = try CaptureRig()
        let session = try rig.session(format: .jpeg)
        try await session.startRunning()
        #expect(await eventually { await session.streamStatistics.kept >= 3 })
        let results = try await withThrowingTaskGroup(of: CaptureResult.self) { group in
            for _ in 0..<3 { group.addTask { try await session.capturePhoto(PhotoSettings(quality: .quality)) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 3 && results.allSatisfy { $0.notes["capturePrioritisation"] == nil })
        await session.stopRunning()
    }

    @Test func switchingCamerasRestoresThePreviousOneWhenTheNewOneFails() async throws {
        let rig = try CaptureRig()
        let session = try rig.session()
        let log = EventLog(session)
        try await session.startRunning()
        let front = rig.cameras[0]
        try await session.switchCamera(to: front)
        #expect(await log.wait { $0 == .cameraChanged(camera: front.id) })
        let frontPhoto = try await session.capturePhoto(PhotoSettings(quality: .speed, mirrorsFrontCamera: true))
        #expect(try ImageDecoder.decodePhoto(at: frontPhoto.output).primary.width == 640)

        let back = rig.cameras[1]
        rig.io.setBusyInAnotherProcess(true, CaptureRig.back)
        await #expect(throws: V4L2Error.self) { try await session.switchCamera(to: back) }
        #expect(await session.configuration.camera.id == front.id)
        let keptAtRefusal = await session.streamStatistics.kept
        #expect(await eventually { await session.streamStatistics.kept > keptAtRefusal + 3 }, "still streaming the front camera")
        _ = try await session.capturePhoto(PhotoSettings(quality: .speed))
        await session.stopRunning()
    }

    @Test func busyUnpluggedAndFailingCamerasInterruptAndRecover() async throws {
        let rig = try CaptureRig()
        rig.io.setBusyInAnotherProcess(true, CaptureRig.back)
        let session = try rig.session(pipeline: nil)
        let log = EventLog(session)
        try await session.startRunning()
        #expect(await session.state == .interrupted(.videoDeviceInUseByAnotherClient))
        await #expect(throws: MatteboxError.self) { try await session.capturePhoto() }
        rig.io.setBusyInAnotherProcess(false, CaptureRig.back)
        #expect(await log.wait { $0 == .interruptionEnded })
        #expect(await session.state == .running)

        // Unplugged while a photo is on its way: the photo is still written.
        try await Task.sleep(for: .milliseconds(200))
        async let pending = session.capturePhoto(PhotoSettings(quality: .speed))
        #expect(await log.wait { if case .photo(_, .willCapture) = $0 { return true } else { return false } })
        rig.io.unplug(CaptureRig.back)
        let kept = try await pending
        #expect(FileManager.default.fileExists(atPath: kept.output.path))
        #expect(await log.wait { $0 == .interrupted(.videoDeviceNotAvailable) })
        try await Task.sleep(for: .milliseconds(400))
        rig.io.replug(CaptureRig.back)
        #expect(await log.wait { $0.self == .interruptionEnded && log.all.filter { $0 == .interruptionEnded }.count == 2 })
        try await Task.sleep(for: .milliseconds(200))
        _ = try await session.capturePhoto(PhotoSettings(quality: .speed))

        rig.io.inject(.ioErrorOnNextDequeue, CaptureRig.back)
        #expect(await log.wait { if case .runtimeError(let message) = $0 { return message.contains("EIO") || message.contains("Input/output") } else { return false } })
        #expect(await eventually { await session.state == .running })
        _ = try await session.capturePhoto(PhotoSettings(quality: .speed))
        await session.stopRunning()
    }

    @Test func permissionDeniedSaysHowToGetAccess() async throws {
        let rig = try CaptureRig()
        let session = try rig.session(pipeline: nil)
        rig.io.setAccessDenied(true, CaptureRig.back)
        do {
            try await session.startRunning()
            Issue.record("start should fail without permission")
        } catch {
            #expect("\(error)".contains("usermod -aG video"))
        }
    }
}
