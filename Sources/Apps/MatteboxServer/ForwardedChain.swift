import Foundation

/// The addresses a request passed through, as forwarding headers list them
/// (client first, each proxy appending the address it saw). Only the entries a
/// trusted proxy added can be believed: anything left of them is what the
/// client itself sent. So the client is the rightmost entry that is not a
/// trusted proxy, as nginx's `real_ip_recursive` and Go's proxy conventions
/// take it; a chain of trusted proxies only is its leftmost entry.
struct ForwardedChain: Equatable {
    /// The entries, client side first; one that is not an address ("unknown", an obfuscated
    /// node) stays as written and is never loopback nor trusted.
    var entries: [String]

    /// `X-Forwarded-For`, over all its header lines in order; nil when absent.
    static func xForwardedFor(_ lines: [String]) -> ForwardedChain? {
        guard !lines.isEmpty else { return nil }
        let entries = lines.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { normalised($0.trimmingCharacters(in: .whitespaces)) }
        return ForwardedChain(entries: entries)
    }

    /// RFC 7239 `Forwarded`: elements separated by commas (over all its lines), each a list
    /// of `name=value` pairs separated by semicolons; the `for` of each element in order. An
    /// element without `for` counts as an unknown hop. Nil when absent.
    static func forwarded(_ lines: [String]) -> ForwardedChain? {
        guard !lines.isEmpty else { return nil }
        var entries: [String] = []
        for element in lines.flatMap({ splitOutsideQuotes($0, on: ",") }) {
            let pairs = splitOutsideQuotes(element, on: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            let value = pairs.first { $0.lowercased().hasPrefix("for=") }.map { String($0.dropFirst(4)) }
            entries.append(normalised(value.map(unquoted) ?? "unknown"))
        }
        return ForwardedChain(entries: entries)
    }

    /// The client: the rightmost entry that is not a trusted proxy, else the leftmost.
    func client(trusting proxies: [AddressRange]) -> String {
        if let untrusted = entries.last(where: { entry in !proxies.contains { $0.contains(entry) } }) { return untrusted }
        return entries.first ?? "unknown"
    }

    /// An address without the port or brackets a proxy may write ("[::1]:8080", "192.0.2.1:80").
    static func normalised(_ entry: String) -> String {
        if entry.hasPrefix("["), let end = entry.firstIndex(of: "]") {
            return String(entry[entry.index(after: entry.startIndex)..<end])
        }
        let colons = entry.filter { $0 == ":" }.count
        if colons == 1, let colon = entry.firstIndex(of: ":") { return String(entry[..<colon]) }
        return entry
    }

    private static func unquoted(_ value: String) -> String {
        value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"") ? String(value.dropFirst().dropLast()) : value
    }

    private static func splitOutsideQuotes(_ text: String, on separator: Character) -> [String] {
        var parts: [String] = [], current = "", quoted = false
        for character in text {
            if character == "\"" { quoted.toggle() }
            if character == separator && !quoted {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts.map { $0.trimmingCharacters(in: .whitespaces) }
    }
}

/// An IP address or a CIDR block (`--trusted-proxy 127.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`):
/// the proxies whose forwarding headers the app believes.
package struct AddressRange: Sendable, Equatable, CustomStringConvertible {
    let bytes: [UInt8]
    let prefixLength: Int
    package let description: String

    /// The loopback proxies `--behind-proxy` alone trusts.
    package static let loopback = [AddressRange("127.0.0.0/8")!, AddressRange("::1")!]

    package init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard let first = parts.first, let bytes = Self.bytes(of: first) else { return nil }
        let length: Int
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...bytes.count * 8).contains(given) else { return nil }
            length = given
        } else {
            length = bytes.count * 8
        }
        self.bytes = bytes
        prefixLength = length
        description = text
    }

    /// Whether `address` (an IPv4-mapped IPv6 address counts as its IPv4 one) lies in the range.
    package func contains(_ address: String) -> Bool {
        guard var other = Self.bytes(of: address) else { return false }
        if other.count == 16 && bytes.count == 4 && other.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff] {
            other = Array(other.suffix(4))
        }
        guard other.count == bytes.count else { return false }
        var remaining = prefixLength
        for index in bytes.indices where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xff << (8 - bits))
            if bytes[index] & mask != other[index] & mask { return false }
            remaining -= bits
        }
        return true
    }

    /// The address's bytes (4 or 16), or nil when it is no IP address.
    static func bytes(of address: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
