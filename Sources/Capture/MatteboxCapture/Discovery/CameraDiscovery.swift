import CV4L2
import Foundation
import MatteboxCore
import MatteboxRuntime

/// Finds V4L2 cameras the way udev and libcamera do: capture nodes under
/// /sys/class/video4linux (metadata nodes skipped by QUERYCAP), their formats,
/// sizes and frame rates, their position (the V4L2 orientation control, then
/// the sysfs physical location, then removable/fixed, then the user's
/// config), their sensor rotation, and a stable id from /dev/v4l/by-id or
/// by-path. The root is injectable so tests bring their own sysfs tree.
package struct CameraDiscovery: Sendable {
    package var root: URL
    package var io: VideoDeviceIO
    /// Positions the user set by camera id, path or name (from the cameras config).
    package var positionOverrides: [String: CameraPosition] = [:]

    package init(root: URL = URL(fileURLWithPath: "/"), io: VideoDeviceIO = LibV4L2IO()) {
        self.root = root
        self.io = io
    }

    /// The root from MATTEBOX_SYSTEM_ROOT when set (tests and demos), else `/`.
    package static func fromEnvironment(io: VideoDeviceIO = LibV4L2IO()) -> CameraDiscovery {
        CameraDiscovery(root: SystemRoot.fromEnvironment, io: io)
    }

    package func cameras() -> [CameraDevice] {
        let classDirectory = root.appendingPathComponent("sys/class/video4linux")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: classDirectory.path)) ?? []
        let nodes = names.filter { $0.hasPrefix("video") }.sorted { (Int($0.dropFirst(5)) ?? 0) < (Int($1.dropFirst(5)) ?? 0) }
        let links = stableLinks()
        return nodes.compactMap { node in
            let sysfs = classDirectory.appendingPathComponent(node)
            let id = links["by-id"]?[node].map { "by-id/\($0)" } ?? links["by-path"]?[node].map { "by-path/\($0)" }
            return Self.describe(
                path: "/dev/\(node)", io: io, stableID: id, sysfs: sysfs, isReplay: false, overrides: positionOverrides)
        }
    }

    /// by-id and by-path symlink names per node (`video0` → `usb-Vendor_Cam_123-video-index0`).
    private func stableLinks() -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for kind in ["by-id", "by-path"] {
            let folder = root.appendingPathComponent("dev/v4l/\(kind)")
            for link in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] {
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: folder.appendingPathComponent(link).path)
                else { continue }
                let node = (target as NSString).lastPathComponent
                if result[kind]?[node] == nil || link.hasSuffix("index0") { result[kind, default: [:]][node] = link }
            }
        }
        return result
    }

    /// Everything one node says about itself; nil for nodes that do not capture video.
    package static func describe(
        path: String, io: VideoDeviceIO, stableID: String?, sysfs: URL?, isReplay: Bool,
        overrides: [String: CameraPosition] = [:]
    ) -> CameraDevice? {
        let device: V4L2Device
        do {
            device = try V4L2Device(path: path, io: io)
        } catch {
            guard error.isPermissionDenied else { return nil }
            let name = sysfs.flatMap { text($0.appendingPathComponent("name")) } ?? path
            return CameraDevice(
                id: stableID ?? path, path: path, name: name, make: nil, details: [:], position: .external,
                positionSource: "default", sensorRotation: 0, formats: [], isReplay: isReplay, problem: error.description, backend: V4L2Backend(io: io))
        }
        defer { device.close() }
        guard let caps = try? device.capability(), caps.capturesVideo, caps.streams else { return nil }
        let formats = ((try? device.formats()) ?? []).map { format in
            CameraDevice.Format(
                fourcc: format.fourcc, description: format.description,
                sizes: ((try? device.frameSizes(for: format.fourcc)) ?? []).map { size in
                    let rates = ((try? device.frameIntervals(for: format.fourcc, size: size)) ?? []).map(\.framesPerSecond)
                    return CameraDevice.Size(width: size.width, height: size.height, framesPerSecond: rates)
                })
        }
        let id = stableID ?? "bus/\(caps.busInfo)/\(caps.card)"
        var (position, source) = position(of: device, sysfs: sysfs)
        if let override = overrides[id] ?? overrides[path] ?? overrides[caps.card] {
            (position, source) = (override, "config")
        }
        let rotation = device.control(MBX_CID_CAMERA_SENSOR_ROTATION).map { ((Int($0) % 360) + 360) % 360 } ?? 0
        return CameraDevice(
            id: id, path: path, name: caps.card, make: caps.driver, details: ["driver": caps.driver, "bus": caps.busInfo], position: position,
            positionSource: source, sensorRotation: rotation, formats: formats, isReplay: isReplay, problem: nil, backend: V4L2Backend(io: io))
    }

    private static func position(of device: V4L2Device, sysfs: URL?) -> (CameraPosition, String) {
        switch device.control(MBX_CID_CAMERA_ORIENTATION).map(UInt32.init) {
        case MBX_CAMERA_ORIENTATION_FRONT?: return (.front, "V4L2_CID_CAMERA_ORIENTATION")
        case MBX_CAMERA_ORIENTATION_BACK?: return (.back, "V4L2_CID_CAMERA_ORIENTATION")
        case MBX_CAMERA_ORIENTATION_EXTERNAL?: return (.external, "V4L2_CID_CAMERA_ORIENTATION")
        default: break
        }
        guard let sysfs else { return (.external, "default") }
        // The USB device sits above the interface that `device` points at.
        let interface = sysfs.appendingPathComponent("device")
        for folder in [interface, interface.appendingPathComponent("..")] {
            switch text(folder.appendingPathComponent("physical_location/panel")) {
            case "front"?: return (.front, "sysfs physical_location")
            case "back"?: return (.back, "sysfs physical_location")
            default: break
            }
        }
        for folder in [interface, interface.appendingPathComponent("..")] {
            switch text(folder.appendingPathComponent("removable")) {
            case "fixed"?: return (.front, "sysfs removable (fixed: built in)")
            case "removable"?: return (.external, "sysfs removable")
            default: break
            }
        }
        return (.external, "default")
    }

    private static func text(_ url: URL) -> String? {
        (try? String(contentsOf: url, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension Array where Element == CameraDevice {
    /// The camera a session starts with, chosen as AVCam does: back, then front, then external.
    package var defaultCamera: CameraDevice? {
        let usable = filter { $0.problem == nil }
        return usable.first { $0.position == .back } ?? usable.first { $0.position == .front } ?? usable.first
    }

    /// A camera by id, path or name, or the first usable one at a position.
    package func camera(matching selector: String) -> CameraDevice? {
        first { $0.id == selector || $0.path == selector || $0.name == selector }
    }

    package func camera(at position: CameraPosition) -> CameraDevice? {
        first { $0.position == position && $0.problem == nil }
    }
}
