import ArgumentParser
import Foundation
import MatteboxPressure

/// `mattebox thermal`: the system pressure level the capture session and
/// batch processing act on, with the thermal zones, cooling devices and CPU
/// pressure behind it.
struct ThermalCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thermal",
        abstract: "Print the system pressure level (nominal, fair, serious, critical, shutdown) and its factors.",
        discussion: """
            Reads /sys/class/thermal (zones with their trip points, cooling devices) and \
            /proc/pressure/cpu. At serious a capture session throttles to 15-20 fps and skips depth, \
            and a batch runs half its photos at once; at critical one; at shutdown capture stops and \
            a batch pauses. MATTEBOX_SYSTEM_ROOT points at another root (for tests and demos).
            """)

    @OptionGroup var verbosity: Verbosity
    @Flag(help: "Print JSON instead of text.") var json = false
    @Option(help: "Keep printing every N seconds (with hysteresis applied across samples).") var watch: Double?

    func run() throws {
        let monitor = PressureMonitor()
        repeat {
            let state = monitor.sample()
            if json {
                try JSONOutput.print(state)
            } else {
                print("pressure: \(state.level)" + (state.rawLevel != state.level ? " (factors alone: \(state.rawLevel))" : ""))
                if state.factors.isEmpty {
                    print("  no thermal zones, cooling devices or CPU pressure readable under \(monitor.sources.root.path)")
                }
                for factor in state.factors {
                    print("  \(factor.level.description.padding(toLength: 9, withPad: " ", startingAt: 0)) \(factor.source): \(factor.reading)")
                }
            }
            if let watch { Thread.sleep(forTimeInterval: max(0.1, watch)) }
        } while watch != nil
    }
}
