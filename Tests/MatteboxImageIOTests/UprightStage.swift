import MatteboxCore
import MatteboxImageIO
import MatteboxImageOps

/// What the Orientation plugin does to a photo, through the same host
/// geometry: mirror, then turn clockwise, then orientation 1.
enum UprightStage {
    static func run(_ photo: inout Photo) throws {
        let orientation = photo.metadata.orientation
        if orientation.isMirrored { try photo.apply(.flipHorizontal) }
        switch orientation.clockwiseQuarterTurns {
        case 1: try photo.apply(.rotate90)
        case 2: try photo.apply(.rotate180)
        case 3: try photo.apply(.rotate270)
        default: break
        }
        photo.metadata.orientation = .up
    }
}
