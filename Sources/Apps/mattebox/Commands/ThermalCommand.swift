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
            /proc/pressure/cpu. Thermal signals set the level; CPU pressure is shown beside it but \
            never raises it (a busy machine is not a hot one). At serious a capture session throttles to 15-20 fps and skips depth, \
            and a batch runs half its photos at once; at critical one; at shutdown capture stops and \
            a batch pauses. MATTEBOX_SYSTEM_ROOT points at another root (for tests and demos).
            """)

    @OptionGroup var verbosity: Verbosity
    @Flag(help: "Print JSON instead of text.") var json = false
    @Option(help: "Keep printing every N seconds (N > 0; hysteresis applies across samples); with --json, one JSON line each.")
    var watch: Double?

    func validate() throws {
        if let watch, !(watch > 0) { throw ValidationError("--watch takes an interval in seconds greater than 0, not \(watch)") }
    }

    func run() throws {
        let monitor = PressureMonitor()
        repeat {
            let state = monitor.sample()
            if json {
                try watch == nil ? JSONOutput.print(state) : JSONOutput.printLine(state)
            } else {
                print("pressure: \(state.level)" + (state.rawLevel != state.level ? " (factors alone: \(state.rawLevel))" : ""))
                if state.factors.isEmpty {
                    print("  no thermal zones, cooling devices or CPU pressure readable under \(monitor.sources.root.path)")
                }
                for factor in state.factors {
                    print("  \(factor.level.description.padding(toLength: 9, withPad: " ", startingAt: 0)) \(factor.source): \(factor.reading)")
                }
            }
            fflush(nil)
            if let watch { Thread.sleep(forTimeInterval: watch) }
        } while watch != nil
    }
}
