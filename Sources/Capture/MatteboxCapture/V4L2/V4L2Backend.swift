import CV4L2
import Foundation

/// Cameras as V4L2 devices, reached through a `VideoDeviceIO` seam: libv4l2
/// for real cameras, `EmulatedV4L2` for emulated and replay ones.
package struct V4L2Backend: CameraBackend {
    package let io: VideoDeviceIO

    package init(io: VideoDeviceIO) { self.io = io }

    package func openStream(_ camera: CameraDevice, fourcc: FourCC, size: FrameSize, framesPerSecond: Double?) throws
        -> any CameraStream
    {
        try V4L2CameraStream(path: camera.path, io: io, fourcc: fourcc, size: size, framesPerSecond: framesPerSecond)
    }

    /// Controls through a handle of their own, beside the one that streams.
    package func controls(of camera: CameraDevice) throws -> [CameraControl] {
        try V4L2Device(path: camera.path, io: io).queryControls()
    }

    package func setControl(_ control: CameraControl, to value: ControlValue, on camera: CameraDevice) throws {
        try V4L2Device(path: camera.path, io: io).setControl(control.id, to: value)
    }

    /// Emulated and replay devices can be unplugged, replugged and taken on purpose.
    package var simulation: (any CameraSimulation)? { io as? EmulatedV4L2 }
}

/// One V4L2 device set to a format and frame rate, streaming through mmap
/// buffers, with libv4lconvert to decode its frames.
final class V4L2CameraStream: CameraStream {
    let device: V4L2Device
    let stream: VideoStream
    let interval: FrameInterval?
    let decoder: any FrameDecoder

    init(path: String, io: VideoDeviceIO, fourcc: FourCC, size: FrameSize, framesPerSecond: Double?) throws {
        device = try V4L2Device(path: path, io: io)
        do {
            _ = try device.setFormat(fourcc, size: size)
            if let framesPerSecond {
                interval = try device.setFrameInterval(FrameInterval(framesPerSecond: framesPerSecond))
            } else {
                interval = try device.frameInterval()
            }
            decoder = try FrameConverter(device: device)
            stream = try VideoStream(device: device)
        } catch {
            device.close()
            throw error
        }
    }

    var format: StreamFormat { stream.format }

    func nextFrame(timeoutMilliseconds: Int32) throws -> CapturedFrame? {
        try stream.nextFrame(timeoutMilliseconds: timeoutMilliseconds)
    }

    /// V4L2_CID_EXPOSURE_ABSOLUTE (100 µs units), ISO_SENSITIVITY, AUTO_WHITE_BALANCE, where the device has them.
    func currentSettings() -> CameraSettings {
        CameraSettings(
            exposureTime: device.control(MBX_CID_EXPOSURE_ABSOLUTE).flatMap { $0 > 0 ? Double($0) / 10_000 : nil },
            iso: device.control(MBX_CID_ISO_SENSITIVITY).flatMap { $0 > 0 ? Int($0) : nil },
            autoWhiteBalance: device.control(MBX_CID_AUTO_WHITE_BALANCE).map { $0 != 0 })
    }

    func stop() {
        stream.stop()
        device.close()
    }
}

extension V4L2Error: CameraFailure {}

extension FrameConverter: FrameDecoder {}
