import CVisionAPI
import CVisionLoader
import MatteboxCore

/// The edges a render has that its photo lacks: ghost outlines, stair-steps
/// and fill halos a depth-of-field blur must never make (a blur only weakens
/// edges). The portrait effect is judged by it without ground truth (the
/// quality tests run it on real phone photos).
package struct CreatedEdges: Sendable, Equatable {
    /// Created-edge pixels per 1000 of the frame, measured 1008 px wide.
    package var perMille: Double
    /// The longest connected line of them, in pixels at 1008 px wide.
    package var longest: Int
    /// 255 where an edge was created (1008 px wide), when asked for.
    package var map: PixelImage?

    package static func == (a: Self, b: Self) -> Bool { a.perMille == b.perMille && a.longest == b.longest }

    /// Measures `render` against `original` (the same framing, any sizes).
    package static func measure(original: PixelImage, render: PixelImage, withMap: Bool = false) throws -> CreatedEdges {
        try VisionLibrary.load()
        var originalView = original.visionImage, renderView = render.visionImage
        var result = mbx_cv_created_edges_result()
        var error = mbx_cv_error()
        // The measure's size first (it fixes the map's), then the measure itself with the map.
        try VisionCall.check(mbx_cvl_created_edges(&originalView, &renderView, &result, nil, &error), error, "created edges")
        guard withMap else { return CreatedEdges(perMille: result.per_mille, longest: Int(result.longest), map: nil) }
        let map = PixelImage(width: Int(result.width), height: Int(result.height), channels: 1, format: .uint8)
        var plane = mbx_cv_plane(data: map.data.assumingMemoryBound(to: UInt8.self), width: result.width, height: result.height, stride: map.bytesPerRow)
        try VisionCall.check(mbx_cvl_created_edges(&originalView, &renderView, &result, &plane, &error), error, "created edges")
        return CreatedEdges(perMille: result.per_mille, longest: Int(result.longest), map: map)
    }
}
