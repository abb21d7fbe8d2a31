import Foundation

/// Prints values as pretty, key-sorted JSON for `--json` output.
enum JSONOutput {
    static func print<Value: Encodable>(_ value: Value) throws {
        Swift.print(String(decoding: try encode(value), as: UTF8.self))
    }

    static func encode<Value: Encodable>(_ value: Value) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    static func printObject(_ object: Any) throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        Swift.print(String(decoding: data, as: UTF8.self))
    }
}
