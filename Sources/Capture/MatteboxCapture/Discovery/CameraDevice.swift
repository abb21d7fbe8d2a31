import Foundation
import MatteboxCore

/// A camera a session can use, as discovery found it: a stable id (the
/// AVCaptureDevice.uniqueID analogue), where it faces and how its sensor is
/// mounted, and what it can stream. It keeps the backend that reaches it
/// (V4L2 through libv4l2, or an emulated/replay device); nothing here is any
/// one backend's (a backend's own facts go in `details`).
package struct CameraDevice: Sendable, Codable {
    /// One format with its sizes and frame rates.
    package struct Format: Sendable, Codable, Equatable {
        package var fourcc: FourCC
        package var description: String
        package var sizes: [Size]
    }

    package struct Size: Sendable, Codable, Equatable {
        package var width: Int
        package var height: Int
        package var framesPerSecond: [Double]

        package var frameSize: FrameSize { FrameSize(width: width, height: height) }
    }

    package var id: String
    /// Where its backend reaches it (V4L2: the device node, /dev/video0); messages name the camera by it.
    package var path: String
    package var name: String
    /// Who made it, for the photo's EXIF Make, when the backend knows (V4L2 knows only the driver).
    package var make: String?
    /// What else the backend says of it, shown by `mattebox devices` (V4L2: driver, bus).
    package var details: [String: String]
    package var position: CameraPosition
    /// What decided the position: the V4L2 control, sysfs, the config, or a default.
    package var positionSource: String
    /// Clockwise degrees to turn frames upright (V4L2_CID_CAMERA_SENSOR_ROTATION).
    package var sensorRotation: Int
    package var formats: [Format]
    package var isReplay: Bool
    /// Why the camera cannot be used now (no permission), if so.
    package var problem: String?
    package let backend: any CameraBackend

    enum CodingKeys: String, CodingKey {
        case id, path, name, make, details, position, positionSource, sensorRotation, formats, isReplay, problem
    }

    package init(
        id: String, path: String, name: String, make: String?, details: [String: String], position: CameraPosition,
        positionSource: String, sensorRotation: Int, formats: [Format], isReplay: Bool, problem: String?, backend: any CameraBackend
    ) {
        self.id = id
        self.path = path
        self.name = name
        self.make = make
        self.details = details
        self.position = position
        self.positionSource = positionSource
        self.sensorRotation = sensorRotation
        self.formats = formats
        self.isReplay = isReplay
        self.problem = problem
        self.backend = backend
    }

    package init(from decoder: Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "cameras are discovered, not decoded"))
    }

    /// The largest size any format offers (what `quality` captures switch to).
    package var largestSize: (FourCC, FrameSize)? {
        formats.flatMap { format in format.sizes.map { (format.fourcc, $0.frameSize) } }.max { $0.1 < $1.1 }
    }
}
