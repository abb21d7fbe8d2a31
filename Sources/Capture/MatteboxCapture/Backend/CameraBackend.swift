import Foundation
import MatteboxCore

/// A way to reach cameras, above the ioctl level: the seam a camera that is
/// not V4L2 (libcamera, GStreamer, a network camera) plugs into, as one new
/// type in a folder of its own beside `V4L2/`. It speaks no backend's terms:
/// formats are four-character codes with a kind, controls are the ones it
/// listed (by name, range and menu), cameras are `CameraDevice`s. The session
/// and its stream loop only open streams through it and read frames from them.
/// `V4L2Backend` (real cameras through libv4l2, emulated and replay cameras)
/// is the one behind it today.
package protocol CameraBackend: Sendable {
    /// Opens `camera` and starts it streaming `fourcc` at `size` and
    /// `framesPerSecond` (nil: the rate the camera is set to). Throws a
    /// `CameraFailure` when the camera is busy or gone.
    func openStream(_ camera: CameraDevice, fourcc: FourCC, size: FrameSize, framesPerSecond: Double?) throws
        -> any CameraStream
    /// Every control the camera lists, with its current value. Works while the camera streams.
    func controls(of camera: CameraDevice) throws -> [CameraControl]
    /// Sets one of the controls `controls(of:)` listed; the camera may clamp it to its range and step.
    func setControl(_ control: CameraControl, to value: ControlValue, on camera: CameraDevice) throws
    /// How to unplug, replug or take a simulated camera (replay, emulated), for tests and the
    /// app's replay routes; nil for real cameras.
    var simulation: (any CameraSimulation)? { get }
}

extension CameraBackend {
    package var simulation: (any CameraSimulation)? { nil }
}

/// A simulated camera's bus: what happens to a real camera (unplugged, replugged, taken by
/// another process), made to happen on purpose.
package protocol CameraSimulation: Sendable {
    func unplug(_ camera: CameraDevice)
    func replug(_ camera: CameraDevice)
    func setBusyElsewhere(_ busy: Bool, _ camera: CameraDevice)
}

/// A camera streaming frames, read one at a time as they come.
package protocol CameraStream: AnyObject, Sendable {
    /// What the camera actually streams (it may have snapped the request).
    var format: StreamFormat { get }
    /// The frame interval the camera runs at, when it says.
    var interval: FrameInterval? { get }
    /// Decodes this stream's frames, and keeps doing so after the stream stops.
    var decoder: any FrameDecoder { get }
    /// The next frame, or nil when none came within the timeout. Throws when
    /// the stream cannot go on (the camera is gone, busy, or failed).
    func nextFrame(timeoutMilliseconds: Int32) throws -> CapturedFrame?
    /// What the camera says it is doing now (for the photo's EXIF); nil fields it does not report.
    func currentSettings() -> CameraSettings
    /// Stops streaming and releases the camera; safe to call twice.
    func stop()
}

/// Exposure settings a camera reports, as EXIF records them.
package struct CameraSettings: Sendable, Equatable {
    /// Seconds.
    package var exposureTime: Double?
    package var iso: Int?
    package var autoWhiteBalance: Bool?

    package init(exposureTime: Double? = nil, iso: Int? = nil, autoWhiteBalance: Bool? = nil) {
        self.exposureTime = exposureTime
        self.iso = iso
        self.autoWhiteBalance = autoWhiteBalance
    }
}

/// Turns a stream's frames into RGB images.
package protocol FrameDecoder: Sendable {
    func rgbImage(of frame: CapturedFrame) throws -> PixelImage
}

/// What a backend's errors say about the camera, so the session can tell an
/// interruption (in use elsewhere, unplugged: wait and resume) from a failure.
package protocol CameraFailure: Error, CustomStringConvertible {
    /// Another client has the camera.
    var isBusy: Bool { get }
    /// The camera is gone (unplugged, powered off).
    var isGone: Bool { get }
}
