extension ContinuousClock.Instant {
    /// Seconds elapsed since this instant.
    package var secondsSince: Double {
        let elapsed = ContinuousClock.now - self
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }
}
