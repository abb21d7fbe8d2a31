import Foundation

/// The part of a file a client asked for with `Range: bytes=…` (RFC 9110 §14.1.2), resolved
/// against the file's size. It exists so the browser's `<video>` can seek in a long recording:
/// Chromium asks for byte ranges and will not seek in a movie served only whole.
package enum ByteRange: Equatable {
    /// No usable range was asked for (or several were, or `If-Range` may not match): send it all.
    case whole
    /// Send these bytes with 206 Partial Content.
    case part(ClosedRange<Int>)
    /// The range starts past the end: 416 Range Not Satisfiable.
    case unsatisfiable

    /// What to send for `header` (the Range field's value) on a file of `size` bytes.
    /// Only one range is honoured; a list of ranges gets the whole file, which RFC 9110 allows.
    package init(header: String?, ifRange: String?, size: Int) {
        guard let header, ifRange == nil, size >= 0 else { self = .whole; return }
        let value = header.trimmingCharacters(in: .whitespaces)
        guard value.lowercased().hasPrefix("bytes="), !value.contains(",") else { self = .whole; return }
        let spec = value.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard let dash = spec.firstIndex(of: "-") else { self = .whole; return }
        let first = spec[..<dash], last = spec[spec.index(after: dash)...]
        // Digits only; a position too large for an Int lies past the end of any file (RFC 9110
        // clamps a last position beyond the end), so it becomes Int.max rather than "no range".
        func number(_ text: Substring) -> Int? {
            text.isEmpty || !text.allSatisfy({ $0.isASCII && $0.isNumber }) ? nil : Int(text) ?? Int.max
        }
        if first.isEmpty {
            // "-N": the last N bytes.
            guard let suffix = number(last) else { self = .whole; return }
            self = suffix == 0 || size == 0 ? .unsatisfiable : .part(max(0, size - suffix)...(size - 1))
            return
        }
        guard let start = number(first) else { self = .whole; return }
        let end: Int
        if last.isEmpty { end = size - 1 } else {
            guard let asked = number(last), asked >= start else { self = .whole; return }
            end = min(asked, size - 1)
        }
        self = start >= size ? .unsatisfiable : .part(start...end)
    }
}
