/// In Mattebox's JSON an absent value is `null`, never a missing key, so a
/// script can tell "not known" from "not reported" and every report of a kind
/// has the same keys. Synthesized `Codable` conformances in modules that
/// import this one pick these overloads instead of the standard ones, which
/// leave nil values out. Decoding is unchanged (`decodeIfPresent` takes null).
extension KeyedEncodingContainer {
    package mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        try encode(value, forKey: key)
    }

    package mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try encode(value, forKey: key) }
    package mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try encode(value, forKey: key) }
    package mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try encode(value, forKey: key) }
    package mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try encode(value, forKey: key) }
    package mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try encode(value, forKey: key) }
    package mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try encode(value, forKey: key) }
}
