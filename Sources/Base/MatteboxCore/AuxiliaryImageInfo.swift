import Foundation

/// How the values of a depth or disparity map relate to distance, as the HEVC
/// depth representation SEI says (ISO/IEC 23008-2 D.2.35) and iPhones store it:
/// stored values map linearly onto [minimum, maximum].
package struct DepthRepresentation: Sendable, Codable, Equatable {
    /// The SEI's depth_representation_type.
    /// Coded by name (`--json` names its enums); the SEI's number is read too.
    package enum Kind: Int, Sendable, Codable, CaseIterable, CustomStringConvertible {
        case uniformInverseZ = 0
        case uniformDisparity = 1
        case uniformZ = 2
        case nonUniformDisparity = 3

        /// The name in JSON: "uniformDisparity".
        package var name: String {
            switch self {
            case .uniformInverseZ: return "uniformInverseZ"
            case .uniformDisparity: return "uniformDisparity"
            case .uniformZ: return "uniformZ"
            case .nonUniformDisparity: return "nonUniformDisparity"
            }
        }

        package func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(name)
        }

        package init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let name = try? container.decode(String.self), let kind = Self.allCases.first(where: { $0.name == name }) {
                self = kind
            } else if let number = try? container.decode(Int.self), let kind = Self(rawValue: number) {
                self = kind
            } else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "expected one of \(Self.allCases.map(\.name).joined(separator: ", "))")
            }
        }

        package var description: String {
            switch self {
            case .uniformInverseZ: return "uniform inverse Z"
            case .uniformDisparity: return "uniform disparity"
            case .uniformZ: return "uniform Z"
            case .nonUniformDisparity: return "non-uniform disparity"
            }
        }
    }

    package var kind: Kind
    /// Disparity range (1/m for iPhones; larger is nearer), when given.
    package var disparityMinimum: Double?
    package var disparityMaximum: Double?
    /// Depth range in metres, when given.
    package var nearestDepth: Double?
    package var farthestDepth: Double?

    package init(
        kind: Kind, disparityMinimum: Double? = nil, disparityMaximum: Double? = nil,
        nearestDepth: Double? = nil, farthestDepth: Double? = nil
    ) {
        self.kind = kind
        self.disparityMinimum = disparityMinimum
        self.disparityMaximum = disparityMaximum
        self.nearestDepth = nearestDepth
        self.farthestDepth = farthestDepth
    }

    /// The range stored values map onto: disparity for disparity kinds, else depth.
    package var valueRange: ClosedRange<Double>? {
        let low = kind == .uniformZ ? nearestDepth : disparityMinimum
        let high = kind == .uniformZ ? farthestDepth : disparityMaximum
        guard let low, let high, low <= high else { return nil }
        return low...high
    }
}

/// What a container said about one auxiliary image beyond its pixels: the
/// type URN it was stored under, its own XMP, its depth representation. It
/// lets a stored capture be rewritten without losing any of that; a stage that
/// replaces the image drops it (see `Photo.setAuxiliary`).
package struct AuxiliaryImageInfo: Sendable, Equatable {
    /// The HEIF `auxC` type the image was read from ("urn:mpeg:hevc:2015:auxid:2").
    package var typeURN: String?
    /// The XMP packet attached to the image (Apple's pixel data info, depth data).
    package var xmp: Data?
    /// For depth and disparity: how stored values map to distance.
    package var depth: DepthRepresentation?
    /// Where a phone stored it, when that was not a HEIF auxiliary image ("iPhone JPEG
    /// disparity (MPF image 2)", "Lens Blur depth (GDepth, RangeInverse)"), for notes and listings.
    package var source: String?
    /// For an image read from a JPEG's own depth data (MPF, GDepth, Dynamic Depth): its
    /// pixels as read, so a JPEG writer knows whether the file's own bytes still hold it.
    package var fingerprint: PixelFingerprint?

    package init(typeURN: String? = nil, xmp: Data? = nil, depth: DepthRepresentation? = nil, source: String? = nil) {
        self.typeURN = typeURN
        self.xmp = xmp
        self.depth = depth
        self.source = source
    }
}
