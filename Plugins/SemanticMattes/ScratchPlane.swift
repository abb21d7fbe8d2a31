import MatteboxVisionPluginKit

/// A matte-sized plane the vision library writes and the stage reads, never a photo's image: the
/// face parser's features, which say whether the face found is a person's.
struct ScratchPlane {
    let plane: mbx_cv_plane
    private let memory: UnsafeMutablePointer<UInt8>

    /// A zeroed plane the size of `like` (a plane of the same photo's mattes); nil without one.
    init?(like: mbx_cv_plane?) {
        guard let like, like.width > 0, like.height > 0 else { return nil }
        let count = Int(like.width) * Int(like.height)
        memory = .allocate(capacity: count)
        memory.initialize(repeating: 0, count: count)
        plane = mbx_cv_plane(data: memory, width: like.width, height: like.height, stride: Int(like.width))
    }

    func free() { memory.deallocate() }

    /// How many samples of at least one half lie in `box` (in the primary's pixels, `primaryWidth`
    /// wide, scaled to this plane), as a share of the box.
    func shareAtLeastHalf(ofBox box: mbx_cv_rect, primaryWidth: Int?) -> Double {
        let scale = Double(plane.width) / Double(max(1, primaryWidth ?? Int(plane.width)))
        let x0 = max(0, Int(Double(box.x) * scale)), y0 = max(0, Int(Double(box.y) * scale))
        let x1 = min(Int(plane.width), Int(Double(box.x + box.width) * scale)), y1 = min(Int(plane.height), Int(Double(box.y + box.height) * scale))
        guard x1 > x0, y1 > y0 else { return 0 }
        var count = 0
        for y in y0..<y1 {
            let row = memory + y * Int(plane.width)
            for x in x0..<x1 where row[x] >= 128 { count += 1 }
        }
        return Double(count) / Double((x1 - x0) * (y1 - y0))
    }
}

/// The face the detector found is not a person's, by the face parser: no person mattes for it.
struct NotAPersonsFace: Error {}
