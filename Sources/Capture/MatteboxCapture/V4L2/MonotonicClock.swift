import Foundation

/// CLOCK_MONOTONIC in nanoseconds, the clock V4L2 stamps frames with. Read
/// directly: Swift's clocks map to other clock ids on some runtimes.
package enum MonotonicClock {
    package static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }
}
