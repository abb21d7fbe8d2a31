import MatteboxCore
import MatteboxISOBMFF

/// HEIF's transform properties (`irot`, `imir`) as the EXIF orientation they
/// amount to, and back. Readers apply them in association order; iPhones put
/// the same ones on the primary, the thumbnail and every auxiliary image.
enum HEIFOrientation {
    /// The orientation that displaying stored pixels through these transforms gives.
    static func orientation(of properties: [HEIFProperty]) -> ExifOrientation {
        var mirrored = false, turns = 0  // display = rotate cw `turns` after optional mirror
        for property in properties {
            switch property.value {
            case .rotation(let counterClockwise):
                turns -= counterClockwise
            case .mirror(let axis):
                // Mirroring after (m, t): M R^t M^m = R^-t M^(m+1); a top-bottom
                // flip is a left-right mirror followed by a half turn.
                mirrored.toggle()
                turns = -turns + (axis == 0 ? 2 : 0)
            default:
                continue
            }
        }
        return ExifOrientation(mirrored: mirrored, clockwiseQuarterTurns: turns)
    }

    /// Transform property boxes (irot first, then imir, as iPhones write them)
    /// that display stored pixels in this orientation; none for upright.
    static func transformBoxes(for orientation: ExifOrientation) -> [[UInt8]] {
        let turns = orientation.clockwiseQuarterTurns
        if !orientation.isMirrored {
            return turns == 0 ? [] : [rotation(counterClockwise: (4 - turns) % 4)]
        }
        if turns == 0 { return [mirror(axis: 1)] }
        // irot by c (cw turns -c), then a top-bottom flip: (true, c + 2) must equal (true, turns).
        let counterClockwise = ((turns - 2) % 4 + 4) % 4
        return (counterClockwise == 0 ? [] : [rotation(counterClockwise: counterClockwise)]) + [mirror(axis: 0)]
    }

    private static func rotation(counterClockwise: Int) -> [UInt8] {
        ByteWriter.box("irot") { $0.u8(UInt8(counterClockwise)) }
    }

    private static func mirror(axis: Int) -> [UInt8] {
        ByteWriter.box("imir") { $0.u8(UInt8(axis)) }
    }
}
