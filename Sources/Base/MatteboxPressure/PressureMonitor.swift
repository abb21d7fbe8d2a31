import Foundation
import Synchronization

/// Turns the kernel's raw signals into the one level everybody acts on
/// (capture, batch, `mattebox thermal`), the way AVFoundation's system
/// pressure state behaves: thermal factors set it (CPU pressure is reported
/// beside it, see `PressureFactor.Kind.drivesLevel`); it rises at once when
/// any of them rises, and falls one level at a time, each step only after
/// the raw level has stayed below it for `dwell` (hysteresis, so a throttled
/// camera or batch does not flap between speeds).
package final class PressureMonitor: Sendable {
    /// The level with the factors behind it.
    package struct State: Sendable, Codable, Equatable {
        package var level: PressureLevel
        /// The level the factors alone give now, before hysteresis.
        package var rawLevel: PressureLevel
        package var factors: [PressureFactor]
    }

    private struct Memory {
        var level = PressureLevel.nominal
        var belowSince: ContinuousClock.Instant?
        var last: (at: ContinuousClock.Instant, state: State)?
    }

    package let sources: SystemPressureSources
    package let dwell: Duration
    private let memory = Mutex(Memory())

    package init(sources: SystemPressureSources = .fromEnvironment, dwell: Duration = .seconds(5)) {
        self.sources = sources
        self.dwell = dwell
    }

    /// Reads every source now and updates the level.
    @discardableResult
    package func sample(at now: ContinuousClock.Instant = .now) -> State {
        let factors = sources.read()
        let raw = factors.filter(\.kind.drivesLevel).map(\.level).max() ?? .nominal
        return memory.withLock { memory in
            if raw >= memory.level {
                memory.level = raw
                memory.belowSince = nil
            } else if let since = memory.belowSince {
                if now - since >= dwell {
                    memory.level = PressureLevel(rawValue: memory.level.rawValue - 1)!
                    memory.belowSince = memory.level > raw ? now : nil
                }
            } else {
                memory.belowSince = now
            }
            let state = State(level: memory.level, rawLevel: raw, factors: factors)
            memory.last = (now, state)
            return state
        }
    }

    /// The level, sampled again only when the last reading is older than
    /// `maxAge`: cheap enough to ask before every photo.
    package func current(maxAge: Duration = .seconds(1)) -> State {
        let now = ContinuousClock.now
        if let last = memory.withLock({ $0.last }), now - last.at < maxAge { return last.state }
        return sample(at: now)
    }
}
