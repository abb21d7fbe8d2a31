/// Why a HEIF file could not be read or written. Converted to `MatteboxError`
/// (with the file name) where it leaves the HEIF module.
package enum HEIFError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The bytes break the format: a box size past the end, a count the box
    /// cannot hold, a reference loop.
    case malformed(String)
    /// Valid, but beyond what Mattebox handles (or agrees to allocate).
    case unsupported(String)
    /// libheif refused to code an image.
    case codec(String)

    package var description: String {
        switch self {
        case .malformed(let text): return "malformed HEIF: \(text)"
        case .unsupported(let text): return "unsupported HEIF: \(text)"
        case .codec(let text): return text
        }
    }
}
