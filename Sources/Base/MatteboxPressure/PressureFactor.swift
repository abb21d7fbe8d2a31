/// One signal behind a pressure level (a thermal zone, a cooling device, CPU
/// stall time), so `mattebox thermal` can say why the level is what it is.
package struct PressureFactor: Sendable, Codable, Equatable {
    package enum Kind: String, Sendable, Codable {
        case thermalZone, coolingDevice, cpuPressure

        /// Whether this kind of signal sets the level everybody acts on. CPU
        /// stall time is reported but never does: a busy machine (often our
        /// own encoder) is not a hot one, and must not turn off a stage the
        /// user asked for. Thermal zones and cooling devices do.
        package var drivesLevel: Bool { self != .cpuPressure }
    }

    package var kind: Kind
    /// The zone or device name from sysfs (`thermal_zone0 x86_pkg_temp`), or `cpu`.
    package var source: String
    package var level: PressureLevel
    /// What was read, in words: "71.0 °C, passive trip 80.0 °C", "state 2 of 10", "some avg10 12.5%".
    package var reading: String

    package init(kind: Kind, source: String, level: PressureLevel, reading: String) {
        self.kind = kind
        self.source = source
        self.level = level
        self.reading = reading
    }
}
