@_exported import CVisionAPI
import Foundation
import MatteboxPluginSDK

/// How faces are found (`cascades`, `faces`): what a stage that only looks
/// for a face needs (the portrait effect's focus), and part of the settings
/// every vision plugin shares.
package struct FaceFinding {
    package static let parameters: [Parameter] = [
        Parameter(
            "cascades", .string(default: "/usr/share/opencv4/haarcascades"),
            description: "folder with haarcascade_frontalface_default.xml (Debian package opencv-data)"),
        Parameter(
            "faces", .string(default: "auto"),
            description: "how the face is found: auto (the default) CenterFace when `mattebox models install centerface` "
                + "has installed it, else the Haar cascade; centerface: that model, an error when not installed; "
                + "haar: the cascade alone; or a CenterFace ONNX file"),
    ]
    /// For plugins that draw the face's parts (the semantic mattes).
    package static let landmarkParameters: [Parameter] = [
        Parameter(
            "landmarks", .string(default: "auto"),
            description: "the face's parts for the hair, skin and teeth mattes: auto (the default) MediaPipe's face mesh "
                + "when `mattebox models install facemesh` has installed it, else laid out on the face's box; "
                + "facemesh: that model, an error when not installed; none: the box layout; or a face mesh ONNX file"),
        Parameter(
            "pose", .string(default: "auto"),
            description: "the body's keypoints (with the face mesh): auto (the default) MediaPipe's pose model when "
                + "`mattebox models install pose` has installed it, keeping body skin on the arms and legs and checking the "
                + "person matte; pose: that model, an error when not installed; none; or a pose landmark ONNX file"),
    ]

    package let cascadeDirectory: String
    /// The CenterFace file, or nil for the Haar cascade alone.
    package let faceModel: String?
    /// How faces are found, for the photo's notes.
    package var method: String { faceModel == nil ? "Haar cascade" : "CenterFace (cv::dnn)" }
    /// MediaPipe's face mesh, or nil when the face's parts are laid out on its box.
    package let landmarkModel: String?
    /// MediaPipe's pose landmark model, or nil.
    package let poseModel: String?

    /// CenterFace as `mattebox models install centerface` installs it.
    static var installedCenterFace: String? { NamedModel.installedFile(model: "centerface", file: "centerface-320.onnx") }
    /// The face mesh as `mattebox models install facemesh` installs it.
    static var installedFaceMesh: String? { NamedModel.installedFile(model: "facemesh", file: "face-landmark-192.onnx") }
    /// The pose model as `mattebox models install pose` installs it.
    static var installedPose: String? { NamedModel.installedFile(model: "pose", file: "pose-landmark-full-256.onnx") }

    package init(_ parameters: PluginParameters) throws {
        cascadeDirectory = try parameters.string("cascades")
        faceModel = try Self.model(
            try parameters.string("faces"), parameter: "faces", name: "centerface", off: "haar", installed: Self.installedCenterFace)
        // Only plugins that declare `landmarks` draw the face's parts.
        landmarkModel = try Self.model(
            (try? parameters.string("landmarks")) ?? "none", parameter: "landmarks", name: "facemesh", off: "none",
            installed: Self.installedFaceMesh)
        poseModel = try Self.model(
            (try? parameters.string("pose")) ?? "none", parameter: "pose", name: "pose", off: "none", installed: Self.installedPose)
    }

    /// The model file a parameter chooses: `auto` the installed model (nil when
    /// not installed), `off` none, the model's name the installed model (an
    /// error when not installed), or a readable ONNX file.
    static func model(_ choice: String, parameter: String, name: String, off: String, installed: String?) throws -> String? {
        switch choice {
        case "auto": return installed
        case off: return nil
        case name:
            guard let installed else {
                throw PluginError("\(parameter): \(name) is not installed; run `mattebox models install \(name)`", status: MBX_ERR_INVALID_ARGUMENT)
            }
            return installed
        case let file:
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw PluginError("\(parameter): \(file) is not auto, \(name), \(off) or a readable ONNX file", status: MBX_ERR_INVALID_ARGUMENT)
            }
            return file
        }
    }

    /// Runs body with `options` pointing at the cascades and the face model; the
    /// strings they point to live for the call's duration.
    package func withStrings<T>(_ options: inout mbx_cv_matte_options, _ body: (inout mbx_cv_matte_options) throws -> T) throws -> T {
        try cascadeDirectory.withCString { cascades in
            options.cascade_dir = cascades
            return try Self.withOptionalCString(faceModel) { face in
                options.face_model = face
                return try Self.withOptionalCString(landmarkModel) { landmarks in
                    options.landmark_model = landmarks
                    return try Self.withOptionalCString(poseModel) { pose in
                        options.pose_model = pose
                        return try body(&options)
                    }
                }
            }
        }
    }
}

extension FaceFinding {
    /// body with a C string for text, or NULL for nil.
    fileprivate static func withOptionalCString<T>(_ text: String?, _ body: (UnsafePointer<CChar>?) throws -> T) throws -> T {
        guard let text else { return try body(nil) }
        return try text.withCString { try body($0) }
    }
}

/// The settings every OpenCV plugin shares (how hard to work, how faces are
/// found, how big mattes are), so the vision plugins read and document them
/// the same way.
package struct VisionParameters {
    package static let common: [Parameter] = [
        Parameter(
            "effort", .choice(default: "auto", values: ["auto", "speed", "balanced", "quality"]),
            description: "working resolution and refinement; auto follows the photo's capture.quality"),
        Parameter(
            "scale", .double(default: 0.5, range: 0.05...1),
            description: "matte size relative to the primary (iOS: about half)"),
    ] + FaceFinding.parameters

    package let effort: String
    package let scale: Double
    package let faces: FaceFinding
    package var cascadeDirectory: String { faces.cascadeDirectory }
    /// The CenterFace file, or nil for the Haar cascade alone.
    package var faceModel: String? { faces.faceModel }
    /// How faces are found, for the photo's notes.
    package var faceMethod: String { faces.method }

    package init(_ parameters: PluginParameters) throws {
        effort = try parameters.string("effort")
        scale = try parameters.double("scale")
        faces = try FaceFinding(parameters)
    }

    /// Runs body with the options for mbx_cv_* calls on this photo; the
    /// strings they point to live for the call's duration.
    package func withOptions<T>(for photo: PluginPhoto, _ body: (inout mbx_cv_matte_options) throws -> T) throws -> T {
        let level = effort == "auto" ? (photo.string(MBX_META_QUALITY) ?? "balanced") : effort
        var options = mbx_cv_matte_options()
        options.effort = level == "speed" ? 0 : level == "quality" ? 2 : 1
        options.orientation = Int32(photo.int(MBX_META_ORIENTATION) ?? 1)
        return try faces.withStrings(&options, body)
    }

    package func matteSize(of primary: PluginImage) -> (width: Int, height: Int) {
        (max(1, Int((Double(primary.width) * scale).rounded())), max(1, Int((Double(primary.height) * scale).rounded())))
    }
}

extension PluginImage {
    /// This image as the vision library's borrowed view.
    package var visionImage: mbx_cv_image {
        mbx_cv_image(
            data: data, width: Int32(width), height: Int32(height), channels: Int32(channels), format: Int32(format),
            stride: bytesPerRow)
    }

    /// True when this 8-bit matte has no sample at or above one half: the
    /// thing it would show was not found.
    package var isBlank: Bool {
        !(0..<height).contains { row($0, as: UInt8.self).contains { $0 >= 128 } }
    }

    /// How many of this 8-bit matte's samples are at least one half, as a share of `box` (a
    /// rectangle in `primary`'s pixels, scaled to this matte): how much of a face a part covers.
    package func shareAtLeastHalf(ofBox box: mbx_cv_rect, primary: PluginImage?) -> Double {
        visionPlane.shareAtLeastHalf(ofBox: box, primaryWidth: primary?.width)
    }

    /// This single-channel 8-bit image as an output plane.
    package var visionPlane: mbx_cv_plane {
        mbx_cv_plane(
            data: data.assumingMemoryBound(to: UInt8.self), width: Int32(width), height: Int32(height), stride: bytesPerRow)
    }
}

extension mbx_cv_error {
    /// The message the vision library wrote.
    package var text: String {
        withUnsafeBytes(of: message) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
    }
}

extension mbx_cv_plane {
    /// How many of this plane's samples are at least one half, as a share of `box` (a rectangle in
    /// the pixels of a primary `primaryWidth` wide, scaled to this plane; nil: the plane's own):
    /// those anywhere in the plane, or with `insideOnly` those within the box.
    package func shareAtLeastHalf(ofBox box: mbx_cv_rect, primaryWidth: Int?, insideOnly: Bool = false) -> Double {
        let scale = primaryWidth.map { Double(width) / Double(max(1, $0)) } ?? 1
        let area = Double(box.width) * Double(box.height) * scale * scale
        guard area > 0, let data else { return 0 }
        var (x0, y0, x1, y1) = (0, 0, Int(width), Int(height))
        if insideOnly {
            x0 = max(0, Int(Double(box.x) * scale))
            y0 = max(0, Int(Double(box.y) * scale))
            x1 = min(x1, Int(Double(box.x + box.width) * scale))
            y1 = min(y1, Int(Double(box.y + box.height) * scale))
        }
        var count = 0
        for y in y0..<max(y0, y1) {
            let row = data + y * stride
            for x in x0..<max(x0, x1) where row[x] >= 128 { count += 1 }
        }
        return Double(count) / area
    }
}
