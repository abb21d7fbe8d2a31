/// What an image of a photo is for: the primary picture or one of the auxiliary
/// images iPhone-aware readers know (depth, disparity, mattes, thumbnail).
///
/// Plugins name their inputs and outputs by role; vendor roles use reverse-DNS
/// names. The well-known names match the `MBX_ROLE_*` constants of the ABI.
public struct ImageRole: RawRepresentable, Hashable, Comparable, Sendable, Codable,
    ExpressibleByStringLiteral, CustomStringConvertible
{
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public static let primary: ImageRole = "primary"
    public static let depth: ImageRole = "depth"
    public static let disparity: ImageRole = "disparity"
    public static let portraitMatte: ImageRole = "portraitMatte"
    public static let hairMatte: ImageRole = "hairMatte"
    public static let skinMatte: ImageRole = "skinMatte"
    public static let teethMatte: ImageRole = "teethMatte"
    public static let glassesMatte: ImageRole = "glassesMatte"
    public static let skyMatte: ImageRole = "skyMatte"
    public static let thumbnail: ImageRole = "thumbnail"
    /// Transparency, kept apart from the colour as HEIF keeps it (an auxiliary
    /// image with the MPEG alpha type); PNG and WebP alpha is read into it.
    public static let alpha: ImageRole = "org.mpeg.alpha"

    public static let wellKnown: [ImageRole] = [
        .primary, .depth, .disparity, .portraitMatte, .hairMatte, .skinMatte, .teethMatte,
        .glassesMatte, .skyMatte, .thumbnail,
    ]

    /// Well-known names, or reverse-DNS vendor names ("com.example.normals").
    public var isValidName: Bool {
        if ImageRole.wellKnown.contains(self) { return true }
        let parts = rawValue.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 3 && parts.allSatisfy { part in
            !part.isEmpty && part.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        }
    }

    public var description: String { rawValue }
    public static func < (lhs: ImageRole, rhs: ImageRole) -> Bool { lhs.rawValue < rhs.rawValue }
}
