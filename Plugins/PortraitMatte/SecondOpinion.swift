import MatteboxPluginSDK
import MatteboxVisionPluginKit

/// A person matte checked against the face it was made around, and mended from the face parser
/// where it fails. MODNet is trained on frames with a whole person in them; when a face fills the
/// frame (a selfie, a tight crop) it can leave most of the face out, which no person matte may do:
/// the face the detector found is the person. So the middle of the face box (half its width and
/// height: cheeks, eyes, nose) must be at least 90% inside the matte; where it is not, the face
/// parser's person (every class but its background, within its square about the face) is joined
/// to the matte, each pixel the larger of the two, and MODNet's answer stands everywhere else.
enum SecondOpinion {
    /// The share of the face box's middle the matte covers (at least half-way).
    static func faceCoverage(_ matte: PluginImage, face: mbx_cv_rect, primaryWidth: Int, primaryHeight: Int) -> Double {
        let sx = Double(matte.width) / Double(primaryWidth), sy = Double(matte.height) / Double(primaryHeight)
        let x0 = Int((Double(face.x) + 0.25 * Double(face.width)) * sx), x1 = Int((Double(face.x) + 0.75 * Double(face.width)) * sx)
        let y0 = Int((Double(face.y) + 0.25 * Double(face.height)) * sy), y1 = Int((Double(face.y) + 0.75 * Double(face.height)) * sy)
        let xs = max(0, x0)..<min(matte.width, max(x1, x0 + 1)), ys = max(0, y0)..<min(matte.height, max(y1, y0 + 1))
        guard !xs.isEmpty, !ys.isEmpty else { return 1 }
        var inside = 0
        for y in ys {
            let row = matte.row(y, as: UInt8.self)
            for x in xs where row[x] >= 128 { inside += 1 }
        }
        return Double(inside) / Double(xs.count * ys.count)
    }

    /// Joins the parser's person to the matte when the matte misses the face; what happened, for the note:
    /// nil when the matte holds the face, how much it missed (and how to mend it) when no parser is installed.
    static func mend(
        _ matte: PluginImage, face: mbx_cv_face, primary: PluginImage, view: inout mbx_cv_image, options: inout mbx_cv_matte_options
    ) throws -> String? {
        let coverage = faceCoverage(matte, face: face.box, primaryWidth: primary.width, primaryHeight: primary.height)
        guard coverage < 0.9 else { return nil }
        let missed = String(format: "the person matte left %.0f%% of the face's middle out", (1 - coverage) * 100)
        guard let parser = try SegmentationModel(installed: .faceparser, names: ["person"], classes: NamedModel.faceparserPerson) else {
            return missed + "; with the face parser installed (mattebox models install faceparser) it would be mended"
        }
        var second = [UInt8](repeating: 0, count: matte.width * matte.height)
        try second.withUnsafeMutableBufferPointer { buffer in
            let plane = mbx_cv_plane(
                data: buffer.baseAddress, width: Int32(matte.width), height: Int32(matte.height), stride: matte.width)
            try parser.run(&view, options: &options, face: face.box, roll: face.roll_degrees, planes: ["person": plane])
        }
        for y in 0..<matte.height {
            let row = matte.row(y, as: UInt8.self)
            for x in 0..<matte.width { row[x] = max(row[x], second[y * matte.width + x]) }
        }
        return missed + "; the face parser's person joined to it about the face"
    }
}
