import Foundation
import MatteboxCore

/// Where an emulated camera's pictures come from: frame N as the bytes a
/// camera would send in a given format (MJPEG, YUYV).
package protocol EmulatedFrameSource: Sendable {
    /// Frame N in `format`, as it looks with the camera's controls set to `look`.
    func payload(frame: Int, format: StreamFormat, look: FrameLook) throws -> [UInt8]
}

/// One pixel format an emulated camera offers, with its sizes and frame rates.
package struct EmulatedFormat: Sendable {
    package var fourcc: FourCC
    package var sizes: [FrameSize]
    package var intervals: [FrameInterval]

    package init(fourcc: FourCC, sizes: [FrameSize], framesPerSecond: [Double] = [30, 20, 15]) {
        self.fourcc = fourcc
        self.sizes = sizes
        intervals = framesPerSecond.map { FrameInterval(numerator: 1, denominator: UInt32($0)) }
    }

    var description: String {
        switch fourcc {
        case .mjpeg: return "Motion-JPEG"
        case .yuyv: return "YUYV 4:2:2"
        default: return fourcc.description
        }
    }
}

/// What an emulated V4L2 camera is: the names QUERYCAP reports, its formats,
/// its position and rotation controls (absent like on most webcams when nil),
/// its buffer limits, and the source of its frames.
package struct EmulatedCameraSpec: Sendable {
    package var card: String
    package var driver = "mbx-emulated"
    package var busInfo: String
    package var formats: [EmulatedFormat]
    /// V4L2_CID_CAMERA_ORIENTATION; nil = the device has no such control.
    package var orientation: CameraPosition?
    /// V4L2_CID_CAMERA_SENSOR_ROTATION in degrees; nil = no such control.
    package var sensorRotation: Int?
    /// A webcam's picture controls (brightness, contrast, saturation, gain,
    /// exposure, white balance, focus, power-line frequency), which change the frames.
    package var pictureControls = true
    /// UVC's region-of-interest controls (tap to focus and expose); few webcams have them.
    package var regionOfInterest = false
    package var minimumBuffers = 2
    package var maximumBuffers = 8
    package var frames: EmulatedFrameSource

    package init(
        card: String, busInfo: String, formats: [EmulatedFormat], orientation: CameraPosition? = nil,
        sensorRotation: Int? = nil, frames: EmulatedFrameSource
    ) {
        self.card = card
        self.busInfo = busInfo
        self.formats = formats
        self.orientation = orientation
        self.sensorRotation = sensorRotation
        self.frames = frames
    }
}

/// Faults an emulated camera can be told to show, as real ones do.
package enum EmulatedFault: Sendable {
    /// The next DQBUF fails with EIO (a queue error; libv4l2 also says EIO after repeated bad MJPEG).
    case ioErrorOnNextDequeue
    /// The next N frames arrive cut to a third of their length.
    case truncatedFrames(Int)
    /// The next N frames arrive as noise with no JPEG header.
    case garbageFrames(Int)
    /// The next N frames are lost on the bus: the sequence numbers jump.
    case droppedFrames(Int)
    /// The next N frames are flagged V4L2_BUF_FLAG_ERROR.
    case flaggedFrames(Int)
}
