import Foundation
import MatteboxCore
import MatteboxISOBMFF

/// The HEIF inputs a photo's images came from, parsed once per write, and
/// which of its images may be copied from them instead of encoded: those
/// whose pixels are unchanged since decoding.
struct PassthroughSources {
    private let origins: [ImageRole: CodedOrigin]
    private let copying: Bool
    private let codec: any ItemCodec
    private var parsed: [ObjectIdentifier: HEIFFile] = [:]

    /// `origins`: a photo's `codedOrigins`; `copying` false encodes everything;
    /// only images coded with `codec` (the output's) are copied.
    init(_ origins: [ImageRole: CodedOrigin], copying: Bool, codec: any ItemCodec) {
        self.origins = origins
        self.copying = copying
        self.codec = codec
    }

    /// The HEIF input the primary came from, if it came from one (whether
    /// or not anything is copied), for what else it holds.
    mutating func input() throws -> HEIFFile? {
        guard let origin = origins[.primary] else { return nil }
        return try container(of: origin)
    }

    private mutating func container(of origin: CodedOrigin) throws -> HEIFFile? {
        guard origin.file.bytes.count >= 12, HEIFFile.looksLikeHEIF(Array(origin.file.bytes.prefix(64))) else { return nil }
        let key = ObjectIdentifier(origin.file)
        if parsed[key] == nil { parsed[key] = try HEIFFile(bytes: origin.file.bytes) }
        return parsed[key]
    }

    /// The input and item to copy for `role`, or nil when it must be encoded
    /// (no HEIF origin, coded with another codec than the output's, or a stage
    /// changed its pixels, shape or, for the primary, colour profile).
    /// `geometry` is how the pixels lie compared with the coded ones (stored → now).
    mutating func unchanged(_ role: ImageRole, _ image: PixelImage, iccProfile: Data? = nil) throws
        -> (container: HEIFFile, item: UInt32, geometry: ExifOrientation)?
    {
        guard copying, let origin = origins[role], origin.isUnchanged(image, iccProfile: iccProfile),
            let container = try container(of: origin),
            ImageItemExtractor.codedItemType(of: origin.item, in: container) == codec.itemType
        else { return nil }
        return (container, origin.item, origin.geometry)
    }
}
