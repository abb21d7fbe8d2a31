import MatteboxPluginSDK
import MatteboxVisionPluginKit

/// Depth for a photo, from whichever source it has: a right view of a stereo
/// pair (semi-global matching, rectified with a calibration when given), a
/// depth camera's 16-bit frame in millimetres (holes filled along the
/// photo's edges), or depth an iPhone already embedded (kept as it is).
final class Depth: PhotoProcessor {
    static let rightViewRole = "org.mattebox.stereo-right"

    static let description = ProcessorDescription(
        id: "org.mattebox.depth", name: "Depth",
        summary: "Disparity from a stereo pair, or a depth camera's frame with its holes filled",
        vendor: "Mattebox", license: "MIT", version: (1, 0, 0), threadSafety: .concurrent,
        inputs: [
            Port(role: MBX_ROLE_PRIMARY, description: "the photo (the left view of a stereo pair)"),
            Port(role: Depth.rightViewRole, optional: true, description: "the right view of a stereo pair"),
            Port(role: MBX_ROLE_DEPTH, optional: true, description: "a depth frame (16-bit mm or float metres) or embedded depth"),
            Port(role: MBX_ROLE_DISPARITY, optional: true, description: "embedded disparity, kept"),
        ],
        outputs: [
            Port(role: MBX_ROLE_DISPARITY, optional: true, description: "from stereo: float 1/m with a calibration, else 8-bit relative"),
            Port(role: MBX_ROLE_DEPTH, optional: true, description: "from a depth frame: float metres, holes filled"),
        ],
        parameters: [
            Parameter(
                "source", .choice(default: "auto", values: ["auto", "stereo", "depth-frame", "embedded"]),
                description: "auto: stereo when a right view is attached, else a 16-bit depth frame, else embedded depth"),
            Parameter(
                "long-side", .int(default: 0, range: 0...8192),
                description: "stereo matching size; 0 follows capture.quality (speed 512, balanced 768, quality 1024)",
                unit: "px"),
            Parameter(
                "max-disparity", .int(default: 0, range: 0...1024),
                description: "search range at the matching size; 0 = a sixth of the width", unit: "px"),
            Parameter("calibration", .string(default: ""), description: "stereo calibration from `mattebox calibrate` (rectifies first)"),
            Parameter("refine", .bool(default: true), description: "edge-aware weighted median at holes and depth edges"),
        ])

    private let source: String
    private let longSide: Int
    private let maxDisparity: Int
    private let calibration: String
    private let refine: Bool

    init(parameters: PluginParameters) throws {
        source = try parameters.string("source")
        longSide = Int(try parameters.int("long-side"))
        maxDisparity = Int(try parameters.int("max-disparity"))
        calibration = try parameters.string("calibration")
        refine = try parameters.bool("refine")
    }

    func process(_ photo: PluginPhoto) throws {
        let right = photo.image(Depth.rightViewRole)
        let depth = photo.image(MBX_ROLE_DEPTH)
        let chosen: String
        switch source {
        case "auto":
            // A 16-bit depth image is a depth camera's raw frame; depth read from a HEIC is 8-bit or float.
            let isCameraFrame = depth?.format == mbx_sample_format(MBX_SAMPLE_U16)
            chosen = right != nil ? "stereo" : isCameraFrame ? "depth-frame" : "embedded"
        default: chosen = source
        }
        switch chosen {
        case "stereo":
            guard let right else {
                throw PluginError("source stereo needs the right view: attach it as \(Depth.rightViewRole)", status: MBX_ERR_NOT_FOUND)
            }
            try stereo(photo, right: right)
            try photo.removeImage(Depth.rightViewRole)
        case "depth-frame":
            guard let depth else { throw PluginError("source depth-frame needs a depth image", status: MBX_ERR_NOT_FOUND) }
            try fill(photo, depth: depth)
        default:
            let note = depth != nil || photo.image(MBX_ROLE_DISPARITY) != nil
                ? "kept the depth the photo already had"
                : "no depth source: attach a right view (\(Depth.rightViewRole)) or a depth frame (depth)"
            try photo.setString(MBX_META_NOTE_DEPTH, note)
        }
    }

    private func stereo(_ photo: PluginPhoto, right: PluginImage) throws {
        guard let left = photo.image(MBX_ROLE_PRIMARY) else { throw PluginError("the photo has no primary image") }
        let quality = photo.string(MBX_META_QUALITY) ?? "balanced"
        let side = longSide > 0 ? longSide : quality == "speed" ? 512 : quality == "quality" ? 1024 : 768
        let scale = min(1, Double(side) / Double(max(left.width, left.height)))
        let width = max(1, Int((Double(left.width) * scale).rounded()))
        let height = max(1, Int((Double(left.height) * scale).rounded()))
        var disparity = [Float](repeating: 0, count: width * height)
        var result = mbx_cv_stereo_result()
        var error = mbx_cv_error()
        var leftView = left.visionImage, rightView = right.visionImage
        let status = calibration.withCString { path in
            var options = mbx_cv_stereo_options(
                num_disparities: Int32(maxDisparity), refine: refine ? 1 : 0,
                calibration_path: calibration.isEmpty ? nil : path, out_width: Int32(width), out_height: Int32(height))
            return mbx_cv_stereo_disparity(&leftView, &rightView, &options, &disparity, &result, &error)
        }
        guard status == 0 else { throw PluginError("stereo matching: \(error.text)") }
        if result.focal_px > 0, result.baseline > 0 {
            // Calibrated: pixels to 1/m (the calibration's units are millimetres).
            let perMetre = Float(1 / (result.focal_px * result.baseline / 1000))
            let out = try photo.createImage(
                MBX_ROLE_DISPARITY, width: width, height: height, channels: 1, format: mbx_sample_format(MBX_SAMPLE_F32))
            for y in 0..<height {
                let row = out.row(y, as: Float.self)
                for x in 0..<width { row[x] = disparity[y * width + x] * perMetre }
            }
            try photo.setString(MBX_META_NOTE_DEPTH, "stereo, calibrated: disparity in 1/m")
        } else {
            // Uncalibrated: only relative disparity is known; 255 = the largest found.
            let largest = max(disparity.max() ?? 1, 1e-3)
            let out = try photo.createImage(
                MBX_ROLE_DISPARITY, width: width, height: height, channels: 1, format: mbx_sample_format(MBX_SAMPLE_U8))
            for y in 0..<height {
                let row = out.row(y, as: UInt8.self)
                for x in 0..<width { row[x] = UInt8(min(255, (disparity[y * width + x] / largest * 255).rounded())) }
            }
            try photo.setString(
                MBX_META_NOTE_DEPTH,
                String(format: "stereo, uncalibrated: relative disparity, 255 = %.2f px at %dx%d", largest, width, height))
        }
        photo.log(String(format: "stereo: %.1f%% of pixels matched before filling", result.valid_fraction * 100))
    }

    private func fill(_ photo: PluginPhoto, depth: PluginImage) throws {
        guard let primary = photo.image(MBX_ROLE_PRIMARY) else { throw PluginError("the photo has no primary image") }
        let width = depth.width, height = depth.height
        var metres = [Float](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                metres[y * width + x] =
                    depth.format == mbx_sample_format(MBX_SAMPLE_U16)
                    ? Float(depth.row(y, as: UInt16.self)[x * depth.channels]) / 1000
                    : depth.format == mbx_sample_format(MBX_SAMPLE_F32) ? depth.row(y, as: Float.self)[x * depth.channels] : 0
            }
        }
        var guide = primary.visionImage
        var error = mbx_cv_error()
        guard mbx_cv_fill_depth(&guide, &metres, Int32(width), Int32(height), &error) == 0 else {
            throw PluginError("filling the depth frame: \(error.text)")
        }
        let out = try photo.createImage(
            MBX_ROLE_DEPTH, width: width, height: height, channels: 1, format: mbx_sample_format(MBX_SAMPLE_F32))
        for y in 0..<height {
            let row = out.row(y, as: Float.self)
            for x in 0..<width { row[x] = metres[y * width + x] }
        }
        try photo.setString(MBX_META_NOTE_DEPTH, "depth frame, holes filled along the photo's edges: metres")
    }
}

@_cdecl("mbx_plugin_get")
public func mbx_plugin_get(_ index: UInt32, _ host: UnsafePointer<mbx_host_api>?) -> UnsafePointer<mbx_plugin_descriptor>? {
    PluginExport.descriptor(index: index, host: host, processors: [Depth.self])
}
