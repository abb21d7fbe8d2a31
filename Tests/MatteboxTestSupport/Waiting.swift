import Foundation

/// Waiting in tests: until something happens, within a generous limit that is
/// a failure when reached, never a claim about speed (a loaded CI machine may
/// take many times longer than a laptop). Rates and latencies belong in `make bench`.
package enum Waiting {
    /// The longest any test waits for one thing.
    package static let limit: Double = 90

    /// Polls `condition` every 20 ms until it holds or `limit` seconds pass; says whether it held.
    package static func until(_ limit: Double = Waiting.limit, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date(timeIntervalSinceNow: limit)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }
}
