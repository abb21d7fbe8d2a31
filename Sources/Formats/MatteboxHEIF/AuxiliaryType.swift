import MatteboxCore

/// The HEIF `auxC` type URNs Mattebox knows, and the image roles they map to.
/// Depth and disparity share one URN; the depth representation tells them apart.
package enum AuxiliaryType {
    package static let depthURN = "urn:mpeg:hevc:2015:auxid:2"
    package static let miafDepthURN = "urn:mpeg:mpegB:cicp:systems:auxiliary:depth"
    /// Vendor roles without a standard URN are stored under this prefix.
    package static let matteboxURNPrefix = "urn:org:mattebox:aux:"

    /// Role ↔ URN for the well-known auxiliary images (iPhone and MPEG types), from the role table.
    private static let known: [(role: ImageRole, urn: String)] = ImageRole.known.flatMap { row in row.heifTypes.map { (row.role, $0) } }

    package static func isDepth(_ urn: String) -> Bool { urn == depthURN || urn == miafDepthURN }

    /// The role an auxiliary image of this type takes in a Photo. Unknown types
    /// get a vendor role derived from the URN (the URN itself is kept with the
    /// image, so it is written back unchanged).
    package static func role(for urn: String, depth: DepthRepresentation?) -> ImageRole {
        if isDepth(urn) {
            return depth.map { $0.kind == .uniformDisparity || $0.kind == .nonUniformDisparity } == true
                ? .disparity : .depth
        }
        if let match = known.first(where: { $0.urn == urn }) { return match.role }
        if urn.hasPrefix(matteboxURNPrefix) {
            let role = ImageRole(String(urn.dropFirst(matteboxURNPrefix.count)))
            if role.isValidName { return role }
        }
        let last = urn.split(whereSeparator: { ":/,.".contains($0) }).last.map(String.init) ?? "unknown"
        let cleaned = String(last.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "-" })
        return ImageRole("heif.aux.\(cleaned.isEmpty ? "unknown" : cleaned)")
    }

    /// The URN to store an auxiliary image of this role under.
    package static func urn(for role: ImageRole, info: AuxiliaryImageInfo?) -> String {
        if let urn = info?.typeURN { return urn }
        if role == .depth || role == .disparity { return depthURN }
        if let match = known.first(where: { $0.role == role }) { return match.urn }
        return matteboxURNPrefix + role.rawValue
    }

    /// True for the 0...1 mattes (portrait and semantic), stored as 8-bit grey.
    package static func isMatte(_ role: ImageRole) -> Bool { role.known?.isMatte == true }
}
