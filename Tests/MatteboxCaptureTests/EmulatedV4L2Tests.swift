import CV4L2
import Foundation
import MatteboxCapture
import MatteboxCaptureService
import MatteboxCore
import Testing

/// Pictures a test can recognise in a frame: picture k is a flat colour whose
/// red channel is 20 + 25·k.
enum NumberedPictures {
    static func make(_ count: Int, width: Int = 320, height: Int = 240) -> [PixelImage] {
        (0..<count).map { index in
            let image = PixelImage(width: width, height: height, channels: 3, format: .uint8)
            let pixels = image.data.assumingMemoryBound(to: UInt8.self)
            for offset in stride(from: 0, to: image.byteCount, by: 3) {
                (pixels[offset], pixels[offset + 1], pixels[offset + 2]) = (UInt8(20 + 25 * index), 90, 160)
            }
            return image
        }
    }

    /// Which picture an RGB image shows, from its centre pixel's red.
    static func index(of image: PixelImage) -> Int {
        let red = image.sample(x: image.width / 2, y: image.height / 2, channel: 0)
        return Int(((red - 20) / 25).rounded())
    }

    static func camera(
        _ card: String, position: CameraPosition?, rotation: Int? = nil, fourcc: FourCC = .mjpeg, pictures: Int = 8,
        framesPerPicture: Int = 1
    ) -> EmulatedCameraSpec {
        EmulatedCameraSpec(
            card: card, busInfo: "platform:\(card)",
            formats: [
                EmulatedFormat(fourcc: fourcc, sizes: [FrameSize(width: 320, height: 240), FrameSize(width: 640, height: 480)]),
                EmulatedFormat(fourcc: fourcc == .mjpeg ? .yuyv : .mjpeg, sizes: [FrameSize(width: 320, height: 240)]),
            ],
            orientation: position, sensorRotation: rotation,
            frames: ReplayFrames(pictures: make(pictures), codec: ImageIOReplayPictureCodec(), framesPerPicture: framesPerPicture))
    }
}

/// The emulated device keeps the kernel's rules (the checks v4l2-compliance
/// makes of drivers), serves real frames libv4lconvert decodes, and shows
/// each fault the way uvcvideo does.
@Suite struct EmulatedV4L2Tests {
    let io = EmulatedV4L2()

    init() { io.add(NumberedPictures.camera("Front Cam", position: .front, rotation: 90), at: "/dev/video0") }

    private func expectErrno(_ code: Int32, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try body()
            Issue.record("expected errno \(code), got success", sourceLocation: sourceLocation)
        } catch let error as V4L2Error {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func enumerationsEndWithEINVALAndFormatsSnap() throws {
        let device = try V4L2Device(path: "/dev/video0", io: io)
        let caps = try device.capability()
        #expect(caps.card == "Front Cam" && caps.capturesVideo && caps.streams)
        #expect(try device.formats().map(\.fourcc) == [.mjpeg, .yuyv])
        #expect(try device.frameSizes(for: .mjpeg) == [FrameSize(width: 320, height: 240), FrameSize(width: 640, height: 480)])
        #expect(try device.frameSizes(for: .rgb24).isEmpty)
        #expect(try device.frameIntervals(for: .mjpeg, size: FrameSize(width: 640, height: 480)).map(\.framesPerSecond) == [30, 20, 15])
        let snapped = try device.setFormat(.mjpeg, size: FrameSize(width: 600, height: 470))
        #expect(snapped.size == FrameSize(width: 640, height: 480))
        #expect(try device.setFrameInterval(FrameInterval(numerator: 1, denominator: 21)).framesPerSecond == 20)
        #expect(device.control(MBX_CID_CAMERA_ORIENTATION) == Int32(MBX_CAMERA_ORIENTATION_FRONT))
        #expect(device.control(MBX_CID_CAMERA_SENSOR_ROTATION) == 90)
        var control = v4l2_control(id: MBX_CID_CAMERA_SENSOR_ROTATION, value: 0)
        expectErrno(EACCES) { try device.call("VIDIOC_S_CTRL", MBX_VIDIOC_S_CTRL, &control) }
        var unknown: Int32 = 0
        expectErrno(ENOTTY) { try device.call("VIDIOC_LOG_STATUS", 0x5646, &unknown) }
    }

    @Test func oneHandleOwnsTheQueue() throws {
        let owner = try V4L2Device(path: "/dev/video0", io: io)
        let other = try V4L2Device(path: "/dev/video0", io: io)
        expectErrno(EINVAL) { try owner.streamOn() }
        try owner.streamOff()  // nothing streaming: a no-op
        #expect(try owner.requestBuffers(1) == 2, "clamped to the minimum")
        expectErrno(EBUSY) { _ = try other.requestBuffers(4) }
        expectErrno(EBUSY) { _ = try owner.setFormat(.yuyv, size: FrameSize(width: 320, height: 240)) }
        expectErrno(EINVAL) { _ = try owner.dequeueBuffer() }  // not streaming
        #expect(try owner.requestBuffers(0) == 0)
        #expect(try other.requestBuffers(4) == 4, "freed queue can be taken")
    }

    @Test func framesArriveInSequenceAndDecodeThroughLibv4lconvert() throws {
        for fourcc in [FourCC.mjpeg, .yuyv] {
            let device = try V4L2Device(path: "/dev/video0", io: io)
            _ = try device.setFormat(fourcc, size: FrameSize(width: 320, height: 240))
            let stream = try VideoStream(device: device)
            let (format, converter) = (stream.format, try FrameConverter(device: device))
            #expect(format.fourcc == fourcc)
            var frames: [CapturedFrame] = []
            while frames.count < 5 {
                if let frame = try stream.nextFrame(timeoutMilliseconds: 500) { frames.append(frame) }
            }
            expectErrno(EBUSY) { _ = try device.setFrameInterval(FrameInterval(numerator: 1, denominator: 15)) }
            #expect(frames.map(\.sequence) == Array(frames[0].sequence..<frames[0].sequence + 5))
            for (a, b) in zip(frames, frames.dropFirst()) {
                #expect(abs(Double(b.timestamp - a.timestamp) / 1e9 - 1.0 / 30) < 0.002)
            }
            for frame in frames {
                #expect(frame.defect == nil)
                let image = try converter.rgbImage(of: frame)
                #expect(image.width == 320 && image.height == 240)
                #expect(NumberedPictures.index(of: image) == Int(frame.sequence) % 8, "\(fourcc) frame \(frame.sequence)")
                #expect(abs(image.sample(x: 10, y: 10, channel: 2) - 160) < 12)
            }
            stream.stop()
            device.close()
        }
    }

    @Test func faultsShowAsUVCShowsThem() throws {
        let device = try V4L2Device(path: "/dev/video0", io: io)
        let stream = try VideoStream(device: device)
        io.inject(.truncatedFrames(1), "/dev/video0")
        io.inject(.droppedFrames(3), "/dev/video0")
        io.inject(.garbageFrames(1), "/dev/video0")
        var frames: [CapturedFrame] = []
        while frames.count < 3 {
            if let frame = try stream.nextFrame(timeoutMilliseconds: 500) { frames.append(frame) }
        }
        #expect(frames[0].defect?.contains("truncated") == true)
        #expect(frames[1].sequence == frames[0].sequence + 4, "three frames lost")
        #expect(frames[1].defect?.contains("start marker") == true)
        #expect(frames[2].defect == nil)

        io.inject(.ioErrorOnNextDequeue, "/dev/video0")
        expectErrno(EIO) { while try stream.nextFrame(timeoutMilliseconds: 500) == nil {} }

        let other = try V4L2Device(path: "/dev/video0", io: io)
        expectErrno(EBUSY) { _ = try other.requestBuffers(2) }
        io.unplug("/dev/video0")
        expectErrno(ENODEV) { _ = try stream.nextFrame(timeoutMilliseconds: 500) }
        expectErrno(ENODEV) { _ = try device.format() }
        expectErrno(ENOENT) { _ = try V4L2Device(path: "/dev/video0", io: io) }
        stream.stop()
        io.replug("/dev/video0")
        let fresh = try V4L2Device(path: "/dev/video0", io: io)
        expectErrno(ENODEV) { _ = try device.format() }
        io.setBusyInAnotherProcess(true, "/dev/video0")
        expectErrno(EBUSY) { _ = try fresh.requestBuffers(2) }
        io.setBusyInAnotherProcess(false, "/dev/video0")
        #expect(try fresh.requestBuffers(2) == 2)
        io.setAccessDenied(true, "/dev/video0")
        do {
            _ = try V4L2Device(path: "/dev/video0", io: io)
            Issue.record("open should be denied")
        } catch {
            #expect(error.code == EACCES && error.description.contains("video` group"))
        }
    }
}
