import Foundation
import MatteboxPluginSDK

/// Whether a salient-object network's matte (U²-Net-p) is a subject a render may keep sharp or cut
/// out. The network always answers, so its answer is taken only when it names one object: some of the
/// frame and not all of it, sure of itself (a scene with no subject gets a faint, spread-out glow of
/// half-values), and, where the photo measured depth, nearer than the rest (a subject stands in front
/// of its background). What these three ask makes sense for any photo; none is fitted to one.
enum SalientSubject {
    /// Where the matte counts as the object (0.5) and as sure either way (below 0.2, above 0.8).
    static let inside: UInt8 = 128, sureOutside: UInt8 = 51, sureInside: UInt8 = 204

    /// nil when the matte is a subject; otherwise why not, for the photo's note.
    static func rejection(of matte: PluginImage, depth: PluginImage?, depthIsDistance: Bool) -> String? {
        var covered = 0, unsure = 0
        for y in 0..<matte.height {
            for value in matte.row(y, as: UInt8.self).prefix(matte.width) {
                if value >= inside { covered += 1 }
                if value > sureOutside && value < sureInside { unsure += 1 }
            }
        }
        let share = Double(covered) / Double(max(1, matte.width * matte.height))
        if share < 0.005 { return "nothing in the photo stands out (the salient object covers \(percent(share)) of it)" }
        if share > 0.85 { return "the salient object covers \(percent(share)) of the photo: no subject stands apart from a background" }
        if Double(unsure) > 0.5 * Double(covered) {
            return "the salient-object network is unsure where a subject is (\(unsure) half-certain pixels for \(covered) covered)"
        }
        guard let depth, let (near, rest) = medianDisparities(depth, depthIsDistance: depthIsDistance, matte: matte) else { return nil }
        if near <= rest {
            return "the salient object is not nearer than the rest of the photo by its depth (median disparity \(format(near)) against \(format(rest)))"
        }
        return nil
    }

    /// The median disparity (nearer is larger) of the depth's pixels the matte covers, and of those it surely leaves out.
    private static func medianDisparities(_ depth: PluginImage, depthIsDistance: Bool, matte: PluginImage) -> (Double, Double)? {
        guard depth.channels == 1, depth.width > 0, depth.height > 0 else { return nil }
        var near: [Float] = [], rest: [Float] = []
        for y in 0..<depth.height {
            let matteRow = matte.row(min(matte.height - 1, y * matte.height / depth.height), as: UInt8.self)
            for x in 0..<depth.width {
                guard let sample = disparity(depth, x: x, y: y, distance: depthIsDistance) else { continue }
                let value = matteRow[min(matte.width - 1, x * matte.width / depth.width)]
                if value >= inside {
                    near.append(sample)
                } else if value <= sureOutside {
                    rest.append(sample)
                }
            }
        }
        guard !near.isEmpty, !rest.isEmpty else { return nil }
        return (median(&near), median(&rest))
    }

    /// One depth sample as disparity (larger is nearer); nil where a distance is not positive and finite.
    private static func disparity(_ depth: PluginImage, x: Int, y: Int, distance: Bool) -> Float? {
        let value: Float
        switch depth.format {
        case mbx_sample_format(MBX_SAMPLE_U8): value = Float(depth.row(y, as: UInt8.self)[x])
        case mbx_sample_format(MBX_SAMPLE_U16): value = Float(depth.row(y, as: UInt16.self)[x])
        case mbx_sample_format(MBX_SAMPLE_F32): value = depth.row(y, as: Float.self)[x]
        default: return nil
        }
        guard value.isFinite else { return nil }
        if distance { return value > 0 ? 1 / value : nil }
        return value
    }

    private static func median(_ values: inout [Float]) -> Double {
        let middle = values.count / 2
        values.sort()
        return Double(values[middle])
    }

    private static func percent(_ share: Double) -> String { String(format: "%.1f%%", share * 100) }
    private static func format(_ value: Double) -> String { String(format: "%.3g", value) }
}
