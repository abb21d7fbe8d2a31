/// What an image of a photo is for: the primary picture or one of the auxiliary
/// images iPhone-aware readers know (depth, disparity, mattes, thumbnail).
///
/// Plugins name their inputs and outputs by role; vendor roles use reverse-DNS
/// names. The well-known names match the `MBX_ROLE_*` constants of the ABI.
package struct ImageRole: RawRepresentable, Hashable, Comparable, Sendable, Codable,
    ExpressibleByStringLiteral, CustomStringConvertible
{
    package let rawValue: String
    package init(rawValue: String) { self.rawValue = rawValue }
    package init(_ rawValue: String) { self.rawValue = rawValue }
    package init(stringLiteral value: String) { self.rawValue = value }

    package static let primary: ImageRole = "primary"
    package static let depth: ImageRole = "depth"
    package static let disparity: ImageRole = "disparity"
    package static let portraitMatte: ImageRole = "portraitMatte"
    package static let hairMatte: ImageRole = "hairMatte"
    package static let skinMatte: ImageRole = "skinMatte"
    package static let teethMatte: ImageRole = "teethMatte"
    package static let glassesMatte: ImageRole = "glassesMatte"
    package static let skyMatte: ImageRole = "skyMatte"
    package static let thumbnail: ImageRole = "thumbnail"
    /// Transparency, kept apart from the colour as HEIF keeps it (an auxiliary
    /// image with the MPEG alpha type); PNG and WebP alpha is read into it.
    package static let alpha: ImageRole = "org.mpeg.alpha"
    /// An iPhone's HDR gain map (the form a gain map is kept in, whatever file it came from, when it can say it).
    package static let appleHDRGainMap: ImageRole = "com.apple.hdrgainmap"
    /// A gain map Apple's form cannot say (one map per colour channel, or one that also darkens),
    /// kept in ISO 21496-1's form: 1 or 3 channels, its metadata in `PhotoMetadata.gainMap`.
    package static let isoGainMap: ImageRole = "org.iso.gainmap"
    // What each role is, and the lists of them, are in the one table of `KnownRoles.swift`.

    /// Well-known names, or reverse-DNS vendor names ("com.example.normals").
    package var isValidName: Bool {
        if ImageRole.wellKnown.contains(self) { return true }
        let parts = rawValue.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 3 && parts.allSatisfy { part in
            !part.isEmpty && part.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        }
    }

    package var description: String { rawValue }
    package static func < (lhs: ImageRole, rhs: ImageRole) -> Bool { lhs.rawValue < rhs.rawValue }
}
