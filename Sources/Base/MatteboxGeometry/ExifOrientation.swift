/// The eight EXIF orientations as the transforms they stand for, so stages can
/// compose them (mirroring an already rotated photo) instead of using tables.
///
/// Each value maps stored pixels to display pixels: first an optional
/// left-right mirror, then a clockwise rotation.
public struct ExifOrientation: Hashable, Sendable {
    /// 1...8 as stored in the EXIF Orientation tag.
    public let rawValue: Int

    public init?(_ rawValue: Int) {
        guard (1...8).contains(rawValue) else { return nil }
        self.rawValue = rawValue
    }

    public static let up = ExifOrientation(1)!

    /// (mirrored first, then clockwise quarter turns) for each tag value.
    private static let parts: [Int: (mirror: Bool, turns: Int)] = [
        1: (false, 0), 2: (true, 0), 3: (false, 2), 4: (true, 2),
        5: (true, 3), 6: (false, 1), 7: (true, 1), 8: (false, 3),
    ]

    public var isMirrored: Bool { ExifOrientation.parts[rawValue]!.mirror }
    /// Clockwise quarter turns applied after the optional mirror.
    public var clockwiseQuarterTurns: Int { ExifOrientation.parts[rawValue]!.turns }
    /// True when width and height swap on display.
    public var swapsDimensions: Bool { clockwiseQuarterTurns % 2 == 1 }

    public init(mirrored: Bool, clockwiseQuarterTurns turns: Int) {
        let t = ((turns % 4) + 4) % 4
        let match = ExifOrientation.parts.first { $0.value.mirror == mirrored && $0.value.turns == t }!
        self.rawValue = match.key
    }

    /// This transform followed by `next`: what maps stored pixels to display
    /// when `next` is applied to this one's result.
    public func then(_ next: ExifOrientation) -> ExifOrientation {
        // next * this = R^b M^n * R^a M^m. Without n: R^(a+b) M^m; with: M R^a = R^-a M, so R^(b-a) M^(m+1).
        next.isMirrored
            ? ExifOrientation(mirrored: !isMirrored, clockwiseQuarterTurns: next.clockwiseQuarterTurns - clockwiseQuarterTurns)
            : ExifOrientation(mirrored: isMirrored, clockwiseQuarterTurns: clockwiseQuarterTurns + next.clockwiseQuarterTurns)
    }

    /// The orientation that displays the photo mirrored left-right compared with
    /// this one (what a selfie-mirroring stage writes when it keeps the pixels).
    public var mirroredOnDisplay: ExifOrientation {
        // Display = R^t * M^m. Mirroring the display: M * R^t * M^m = R^-t * M^(m+1).
        ExifOrientation(mirrored: !isMirrored, clockwiseQuarterTurns: -clockwiseQuarterTurns)
    }
}
