import Foundation

/// Prints `--json` output: pretty, key-sorted JSON objects that start with
/// `schemaVersion` (bumped when a key changes meaning or goes away), enums by
/// name and absent values as null (see MatteboxRuntime's JSONNulls). Streams
/// (`thermal --watch --json`, `--json-progress`) are JSON lines instead.
enum JSONOutput {
    /// The version of every `--json` shape Mattebox prints.
    static let schemaVersion = 1

    static func print<Value: Encodable>(_ value: Value) throws {
        Swift.print(String(decoding: try encode(value), as: UTF8.self))
    }

    /// One compact line, flushed at once: an element of a stream.
    static func printLine<Value: Encodable>(_ value: Value) throws {
        Swift.print(String(decoding: try encode(value, pretty: false), as: UTF8.self))
        fflush(nil)
    }

    static func encode<Value: Encodable>(_ value: Value, pretty: Bool = true) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return try versioned(encoder.encode(value), pretty: pretty)
    }

    static func printObject(_ object: Any) throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        Swift.print(String(decoding: try versioned(data, pretty: true), as: UTF8.self))
    }

    /// Adds `schemaVersion` to a top-level object (arrays are left alone).
    private static func versioned(_ data: Data, pretty: Bool) throws -> Data {
        guard var object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? [String: Any] else {
            return data
        }
        object["schemaVersion"] = schemaVersion
        var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        if pretty { options.insert(.prettyPrinted) }
        return try JSONSerialization.data(withJSONObject: object, options: options)
    }
}
