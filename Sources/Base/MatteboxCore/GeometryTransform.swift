import MatteboxGeometry

/// A rotation or mirror of a whole image, as plugins ask for one (raw values
/// match `mbx_transform`): the model names it; image I/O does it to pixels.
package enum GeometryTransform: Int, Sendable, CaseIterable {
    case rotate90 = 1
    case rotate180 = 2
    case rotate270 = 3
    case flipHorizontal = 4
    case flipVertical = 5

    package var swapsDimensions: Bool { self == .rotate90 || self == .rotate270 }

    /// The transform as an orientation (stored → result), to compose with others.
    package var orientation: ExifOrientation {
        switch self {
        case .rotate90: return ExifOrientation(mirrored: false, clockwiseQuarterTurns: 1)
        case .rotate180: return ExifOrientation(mirrored: false, clockwiseQuarterTurns: 2)
        case .rotate270: return ExifOrientation(mirrored: false, clockwiseQuarterTurns: 3)
        case .flipHorizontal: return ExifOrientation(mirrored: true, clockwiseQuarterTurns: 0)
        case .flipVertical: return ExifOrientation(mirrored: true, clockwiseQuarterTurns: 2)
        }
    }
}
