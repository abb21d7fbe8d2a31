/// "Did you mean …?" for names people type: subcommands, plugin ids,
/// parameters, roles. The closest known name by edit distance, when it is
/// close enough to be a typo rather than another word.
package enum Suggestion {
    /// The known name closest to `typed`, if within about a third of its length.
    package static func closest(to typed: String, among known: [String]) -> String? {
        let lowered = typed.lowercased()
        let scored = known.map { ($0, distance(lowered, $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        let allowed = max(2, typed.count / 3)
        // A prefix counts too: "port" for "portraitMatte".
        if best.1 > allowed, let prefixed = known.first(where: { $0.lowercased().hasPrefix(lowered) }), lowered.count >= 3 {
            return prefixed
        }
        return best.1 <= allowed ? best.0 : nil
    }

    /// " (did you mean `x`?)", or "" when nothing is close.
    package static func clause(for typed: String, among known: [String]) -> String {
        closest(to: typed, among: known).map { "; did you mean `\($0)`?" } ?? ""
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
