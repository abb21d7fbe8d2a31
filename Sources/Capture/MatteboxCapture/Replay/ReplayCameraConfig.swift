import Foundation
import MatteboxCore
import MatteboxRuntime
import Yams

/// The cameras config file: replay cameras (image files or folders played as
/// V4L2 cameras, like libcamera's virtual cameras), and positions for real
/// cameras whose drivers do not say where they face.
///
/// ```yaml
/// cameras:
///   - name: Replay Back
///     position: back           # front, back or external
///     rotation: 0              # sensor rotation in degrees
///     images: [photos]         # files or folders, relative to this file
///     framesPerPicture: 30     # how long each picture stays in view
///     format: MJPG             # MJPG or YUYV
///     sizes: [640x480, 1280x960]
///     fps: [30, 20, 15]
///     regionOfInterest: true   # UVC region-of-interest controls (tap to focus and expose)
/// positions:
///   usb-Logitech_C920_1234-video-index0: front
/// ```
package struct ReplayCameraConfig: Codable, Sendable {
    package struct Camera: Codable, Sendable {
        package var name: String
        package var position: CameraPosition?
        package var rotation: Int?
        package var images: [String]
        package var framesPerPicture: Int?
        package var format: String?
        package var sizes: [String]?
        package var fps: [Double]?
        package var regionOfInterest: Bool?
    }

    package var cameras: [Camera] = []
    package var positions: [String: CameraPosition]?
    /// The folder relative image paths are read from.
    package var baseDirectory: URL?

    enum CodingKeys: String, CodingKey { case cameras, positions }

    package init(cameras: [Camera] = [], positions: [String: CameraPosition]? = nil) {
        self.cameras = cameras
        self.positions = positions
    }

    package static func load(_ url: URL) throws -> ReplayCameraConfig {
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch {
            throw MatteboxError("\(url.path): cannot read the cameras config: \(SystemError.describe(error))")
        }
        do {
            var config = try YAMLDecoder().decode(ReplayCameraConfig.self, from: text)
            config.baseDirectory = url.deletingLastPathComponent()
            return config
        } catch {
            throw MatteboxError("\(url.path): not a valid cameras config: \(error)")
        }
    }

    /// One camera playing colour bars, for a machine with no camera and no config.
    package static let colourBars = ReplayCameraConfig(cameras: [
        Camera(name: "Replay colour bars", position: .back, rotation: 0, images: [], framesPerPicture: 15)
    ])

    /// The replay cameras, plugged into one emulated V4L2 bus at `replay/N`,
    /// their pictures read and coded by `codec`.
    package func makeCameras(codec: any ReplayPictureCodec) throws -> [CameraDevice] {
        let bus = EmulatedV4L2()
        var devices: [CameraDevice] = []
        for (index, camera) in cameras.enumerated() {
            let path = "replay/\(index)"
            bus.add(try spec(for: camera, codec: codec), at: path)
            let slug = camera.name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }
            guard let device = CameraDiscovery.describe(
                path: path, io: bus, stableID: "replay/" + String(slug), sysfs: nil, isReplay: true)
            else { throw MatteboxError("replay camera \(camera.name) did not come up") }
            devices.append(device)
        }
        return devices
    }

    private func spec(for camera: Camera, codec: any ReplayPictureCodec) throws -> EmulatedCameraSpec {
        let frames: ReplayFrames
        if camera.images.isEmpty {
            frames = .colourBars(codec: codec)
        } else {
            let base = baseDirectory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            let urls = camera.images.map { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : base.appendingPathComponent($0) }
            frames = try ReplayFrames(
                contentsOf: urls, codec: codec, framesPerPicture: camera.framesPerPicture ?? 30, sensorRotation: camera.rotation ?? 0)
        }
        guard let fourcc = FourCC(camera.format ?? "MJPG"), [FourCC.mjpeg, .yuyv].contains(fourcc) else {
            throw MatteboxError("replay camera \(camera.name): format must be MJPG or YUYV, not \(camera.format ?? "")")
        }
        let sizes = try (camera.sizes ?? ["640x480", "1280x960"]).map { text -> FrameSize in
            let parts = text.lowercased().split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2, parts.allSatisfy({ (16...8192).contains($0) }), parts[0] % 2 == 0 else {
                throw MatteboxError("replay camera \(camera.name): size \(text) is not WIDTHxHEIGHT (even width, 16...8192)")
            }
            return FrameSize(width: parts[0], height: parts[1])
        }
        let rates = camera.fps ?? [30, 20, 15]
        guard !rates.isEmpty, rates.allSatisfy({ $0 >= 1 && $0 <= 240 }) else {
            throw MatteboxError("replay camera \(camera.name): fps must be between 1 and 240")
        }
        var spec = EmulatedCameraSpec(
            card: camera.name, busInfo: "replay:\(camera.name)",
            formats: [EmulatedFormat(fourcc: fourcc, sizes: sizes, framesPerSecond: rates)],
            orientation: camera.position ?? .external, sensorRotation: camera.rotation ?? 0, frames: frames)
        spec.regionOfInterest = camera.regionOfInterest ?? false
        return spec
    }
}
