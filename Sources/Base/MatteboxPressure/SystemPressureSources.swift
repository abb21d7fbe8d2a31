import Foundation
import MatteboxRuntime

/// Reads the kernel's pressure signals under a root folder (`/` on a real
/// machine, a tree made by a test otherwise): thermal zones and their trip
/// points, cooling devices, and CPU pressure stall information. Each signal
/// becomes a factor with its own level; missing files mean no factor.
package struct SystemPressureSources: Sendable {
    package var root: URL

    package init(root: URL = URL(fileURLWithPath: "/")) { self.root = root }

    /// The root from MATTEBOX_SYSTEM_ROOT when set (for tests and demos), else `/`.
    package static var fromEnvironment: SystemPressureSources { SystemPressureSources(root: SystemRoot.fromEnvironment) }

    package func read() -> [PressureFactor] {
        thermalZones() + coolingDevices() + (cpuPressure().map { [$0] } ?? [])
    }

    /// Level from trip points: at a passive trip serious, at hot critical,
    /// within 5 °C of critical shutdown, within 10 °C of passive fair.
    func thermalZones() -> [PressureFactor] {
        entries(in: "sys/class/thermal", prefix: "thermal_zone").compactMap { zone in
            guard let milli = integer(zone.appendingPathComponent("temp")) else { return nil }
            let temperature = Double(milli) / 1000
            var trips: [(type: String, celsius: Double)] = []
            for index in 0..<32 {
                guard let type = text(zone.appendingPathComponent("trip_point_\(index)_type")),
                    let tripMilli = integer(zone.appendingPathComponent("trip_point_\(index)_temp"))
                else { break }
                trips.append((type, Double(tripMilli) / 1000))
            }
            var level = PressureLevel.nominal
            for trip in trips {
                switch trip.type {
                case "critical":
                    if temperature >= trip.celsius - 5 { level = max(level, .shutdown) }
                    else if temperature >= trip.celsius - 15 { level = max(level, .critical) }
                case "hot":
                    if temperature >= trip.celsius { level = max(level, .critical) }
                case "passive":
                    if temperature >= trip.celsius { level = max(level, .serious) }
                    else if temperature >= trip.celsius - 10 { level = max(level, .fair) }
                default:
                    if temperature >= trip.celsius { level = max(level, .fair) }
                }
            }
            let tripText = trips.map { String(format: "%@ %.1f °C", $0.type, $0.celsius) }.joined(separator: ", ")
            let name = text(zone.appendingPathComponent("type")) ?? "?"
            return PressureFactor(
                kind: .thermalZone, source: "\(zone.lastPathComponent) \(name)", level: level,
                reading: String(format: "%.1f °C", temperature) + (tripText.isEmpty ? "" : "; trips: \(tripText)"))
        }
    }

    /// A cooling device at work means the kernel already throttles: fair, serious from half its range.
    func coolingDevices() -> [PressureFactor] {
        entries(in: "sys/class/thermal", prefix: "cooling_device").compactMap { device in
            guard let current = integer(device.appendingPathComponent("cur_state")),
                let maximum = integer(device.appendingPathComponent("max_state")), maximum > 0
            else { return nil }
            let level: PressureLevel = current == 0 ? .nominal : (current * 2 >= maximum ? .serious : .fair)
            let name = text(device.appendingPathComponent("type")) ?? "?"
            return PressureFactor(
                kind: .coolingDevice, source: "\(device.lastPathComponent) \(name)", level: level,
                reading: "state \(current) of \(maximum)")
        }
    }

    /// `some avg10` of /proc/pressure/cpu: fair from 20%, serious from 40%,
    /// critical from 70% of the time stalled (heuristic thresholds).
    func cpuPressure() -> PressureFactor? {
        guard let contents = text(root.appendingPathComponent("proc/pressure/cpu")),
            let line = contents.split(separator: "\n").first(where: { $0.hasPrefix("some ") }),
            let field = line.split(separator: " ").first(where: { $0.hasPrefix("avg10=") }),
            let share = Double(field.dropFirst("avg10=".count))
        else { return nil }
        let level: PressureLevel = share >= 70 ? .critical : share >= 40 ? .serious : share >= 20 ? .fair : .nominal
        return PressureFactor(
            kind: .cpuPressure, source: "cpu", level: level, reading: String(format: "some avg10 %.1f%%", share))
    }

    private func entries(in folder: String, prefix: String) -> [URL] {
        let url = root.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.filter { $0.hasPrefix(prefix) }
            .sorted { (Int($0.dropFirst(prefix.count)) ?? 0) < (Int($1.dropFirst(prefix.count)) ?? 0) }
            .map { url.appendingPathComponent($0) }
    }

    private func text(_ url: URL) -> String? {
        (try? String(contentsOf: url, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func integer(_ url: URL) -> Int? { text(url).flatMap { Int($0) } }
}
