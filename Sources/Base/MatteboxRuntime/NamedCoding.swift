/// Enums that appear in `--json` output by name ("serious", "enum"), never as
/// the numbers they are stored as: a script reads the same words the text
/// output shows. Decoding takes the name, or the number older output held.
package protocol NamedCoding: RawRepresentable, CaseIterable, Codable, CustomStringConvertible where RawValue == Int {}

extension NamedCoding {
    package func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    package init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let name = try? container.decode(String.self), let match = Self.allCases.first(where: { $0.description == name }) {
            self = match
        } else if let number = try? container.decode(Int.self), let match = Self(rawValue: number) {
            self = match
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected one of \(Self.allCases.map(\.description).joined(separator: ", "))")
        }
    }
}
