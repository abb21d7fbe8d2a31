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
}

/// The face the detector found is not a person's, by the face parser: no person mattes for it.
struct NotAPersonsFace: Error {}
