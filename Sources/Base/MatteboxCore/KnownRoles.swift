/// One row per image role Mattebox itself knows: what kind of image it is, the HEIF auxiliary
/// types it is stored under, and its short name where people type one. Why it exists: adding a
/// matte is one row here (plus the vision code that makes it); every list of roles elsewhere
/// (HEIF types, an iPhone JPEG's mattes, what a camera delivers and pressure turns off, export's
/// and the app's names) is derived from this table, and the ABI header's `MBX_ROLE_*` constants
/// (`KnownRolesTests`) and the plugins' own lists (`StandardRoles` in the SDK, `StandardRolesTests`)
/// are checked against it.
package struct KnownRole: Sendable {
    package enum Kind: Sendable, Equatable {
        /// The primary and its thumbnail.
        case picture
        /// Depth or disparity: HEIF stores both under the depth types, told apart by their representation.
        case depth
        case portraitMatte
        case semanticMatte
        case hdrGainMap
        /// Kept and written back, not made: alpha, Apple's linear thumbnail and style map.
        case other
    }

    package let role: ImageRole
    package let kind: Kind
    /// The HEIF `auxC` types it is read from; the first is the one written.
    package let heifTypes: [String]
    /// Its name in `export --matte NAME=FILE`, the app and evaluation reports ("hair").
    package let shortName: String?

    init(_ role: ImageRole, _ kind: Kind, _ heifTypes: [String] = [], _ shortName: String? = nil) {
        (self.role, self.kind, self.heifTypes, self.shortName) = (role, kind, heifTypes, shortName)
    }

    package var isMatte: Bool { kind == .portraitMatte || kind == .semanticMatte }
}

extension ImageRole {
    /// The table (the ABI's roles first, in its order).
    package static let known: [KnownRole] = [
        KnownRole(.primary, .picture),
        KnownRole(.depth, .depth),
        KnownRole(.disparity, .depth),
        KnownRole(.portraitMatte, .portraitMatte, ["urn:com:apple:photo:2018:aux:portraiteffectsmatte"], "portrait"),
        KnownRole(.hairMatte, .semanticMatte, ["urn:com:apple:photo:2019:aux:semantichairmatte"], "hair"),
        KnownRole(.skinMatte, .semanticMatte, ["urn:com:apple:photo:2019:aux:semanticskinmatte"], "skin"),
        KnownRole(.teethMatte, .semanticMatte, ["urn:com:apple:photo:2019:aux:semanticteethmatte"], "teeth"),
        KnownRole(.glassesMatte, .semanticMatte, ["urn:com:apple:photo:2020:aux:semanticglassesmatte"], "glasses"),
        KnownRole(.skyMatte, .semanticMatte, ["urn:com:apple:photo:2020:aux:semanticskymatte"], "sky"),
        KnownRole(.thumbnail, .picture),
        KnownRole(.appleHDRGainMap, .hdrGainMap, ["urn:com:apple:photo:2020:aux:hdrgainmap"]),
        KnownRole(.isoGainMap, .hdrGainMap),
        KnownRole("com.samsung.hdrgainmap", .hdrGainMap, ["urn:com:samsung:photo:2024:aux:hdrgainmap"]),
        KnownRole("com.apple.linearthumbnail", .other, ["tag:apple.com,2023:photo:aux:linearthumbnail"]),
        KnownRole("com.apple.styledeltamap", .other, ["tag:apple.com,2023:photo:aux:styledeltamap"]),
        KnownRole(.alpha, .other, ["urn:mpeg:hevc:2015:auxid:1", "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha"]),
    ]

    /// The portrait matte and the semantic mattes, in the table's order.
    package static let mattes: [ImageRole] = known.filter(\.isMatte).map(\.role)
    /// The semantic mattes (hair, skin, teeth, glasses, sky).
    package static let semanticMattes: [ImageRole] = known.filter { $0.kind == .semanticMatte }.map(\.role)
    /// Depth and disparity.
    package static let depthRoles: [ImageRole] = known.filter { $0.kind == .depth }.map(\.role)
    /// What a portrait effect is rendered from: the portrait matte, depth or disparity (any one).
    package static let portraitEffectSources: [ImageRole] = known.filter { $0.kind == .portraitMatte || $0.kind == .depth }.map(\.role)
    /// The HDR gain maps phones store beside an SDR primary (Apple's, Samsung's).
    package static let hdrGainMaps: Set<ImageRole> = Set(known.filter { $0.kind == .hdrGainMap }.map(\.role))
    /// The roles the plugin ABI names (`MBX_ROLE_*`): the table's plain names.
    package static let wellKnown: [ImageRole] = known.map(\.role).filter { !$0.rawValue.contains(".") }

    /// The mattes by their short names ("hair" → hairMatte).
    package static let mattesByShortName: [(name: String, role: ImageRole)] = known.filter(\.isMatte).compactMap { row in
        row.shortName.map { ($0, row.role) }
    }

    /// This role's row, when it is one Mattebox knows.
    package var known: KnownRole? { ImageRole.known.first { $0.role == self } }
}
