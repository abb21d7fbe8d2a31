import Foundation

/// A random number generator whose seed is printed, so a failure seen once can
/// be replayed: MATTEBOX_TEST_SEED=N gives the same numbers again (SplitMix64).
package struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    package let seed: UInt64

    /// `label` names the test in the printed line.
    package init(_ label: String) {
        seed = ProcessInfo.processInfo.environment["MATTEBOX_TEST_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        state = seed
        print("\(label): random seed \(seed) (MATTEBOX_TEST_SEED=\(seed) replays it)")
    }

    /// A fixed seed, unless MATTEBOX_TEST_SEED gives another: the same inputs on every run (a gate that
    /// never fails by chance), replayable with another seed to explore.
    package init(_ label: String, fixed: UInt64) {
        seed = ProcessInfo.processInfo.environment["MATTEBOX_TEST_SEED"].flatMap { UInt64($0) } ?? fixed
        state = seed
        print("\(label): seed \(seed) (MATTEBOX_TEST_SEED=N for others)")
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
