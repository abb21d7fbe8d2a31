import Foundation

import MatteboxPressure
import MatteboxTestSupport
import Testing

/// A sysfs/procfs tree made by the test heats up and cools down; the monitor
/// must rise at once and fall one level per dwell.
@Suite struct PressureMonitorTests {
    let root: URL

    init() throws {
        root = try TestEnvironment.scratchDirectory("thermal")
        let zone = root.appendingPathComponent("sys/class/thermal/thermal_zone0")
        try FileManager.default.createDirectory(at: zone, withIntermediateDirectories: true)
        for (name, value) in [("type", "x86_pkg_temp"), ("trip_point_0_type", "passive"), ("trip_point_0_temp", "80000"),
                              ("trip_point_1_type", "hot"), ("trip_point_1_temp", "90000"),
                              ("trip_point_2_type", "critical"), ("trip_point_2_temp", "105000")] {
            try write(value, to: "sys/class/thermal/thermal_zone0/\(name)")
        }
        try setTemperature(45)
    }

    private func write(_ text: String, to path: String) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try (text + "\n").write(to: url, atomically: true, encoding: .utf8)
    }

    private func setTemperature(_ celsius: Int) throws {
        try write("\(celsius * 1000)", to: "sys/class/thermal/thermal_zone0/temp")
    }

    @Test func tripPointsCoolingDevicesAndCPUPressureGiveLevels() throws {
        let sources = SystemPressureSources(root: root)
        for (celsius, level) in [(45, PressureLevel.nominal), (72, .fair), (80, .serious), (91, .critical), (101, .shutdown)] {
            try setTemperature(celsius)
            #expect(sources.read().map(\.level) == [level], "\(celsius) °C")
        }
        try setTemperature(45)
        try write("x86_pkg_temp", to: "sys/class/thermal/cooling_device0/type")
        try write("5", to: "sys/class/thermal/cooling_device0/cur_state")
        try write("10", to: "sys/class/thermal/cooling_device0/max_state")
        try write("some avg10=45.20 avg60=10.00 avg300=3.00 total=1234\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0",
                  to: "proc/pressure/cpu")
        let factors = sources.read()
        #expect(factors.map(\.kind) == [.thermalZone, .coolingDevice, .cpuPressure])
        #expect(factors.map(\.level) == [.nominal, .serious, .serious])
        #expect(factors[2].reading == "some avg10 45.2%")
        #expect(factors[0].reading.hasPrefix("45.0 °C; trips: passive 80.0 °C"))
    }

    @Test func cpuPressureAloneIsReportedButNeverRaisesTheLevel() throws {
        try setTemperature(45)
        try write("some avg10=95.00 avg60=90.00 avg300=80.00 total=1234\n", to: "proc/pressure/cpu")
        let state = PressureMonitor(sources: SystemPressureSources(root: root)).sample()
        #expect(state.factors.contains { $0.kind == .cpuPressure && $0.level == .critical }, "reported")
        #expect(state.level == .nominal, "a busy machine is not a hot one: no stage the user asked for is skipped")
    }

    @Test func levelRisesAtOnceAndFallsOneStepPerDwell() throws {
        let monitor = PressureMonitor(sources: SystemPressureSources(root: root), dwell: .seconds(5))
        let start = ContinuousClock.now
        #expect(monitor.sample(at: start).level == .nominal)
        try setTemperature(102)
        #expect(monitor.sample(at: start + .seconds(1)).level == .shutdown)
        try setTemperature(45)
        #expect(monitor.sample(at: start + .seconds(2)).level == .shutdown)  // cooling starts the dwell
        #expect(monitor.sample(at: start + .seconds(6)).level == .shutdown)
        #expect(monitor.sample(at: start + .seconds(7)).level == .critical)
        #expect(monitor.sample(at: start + .seconds(8)).level == .critical)
        #expect(monitor.sample(at: start + .seconds(12)).level == .serious)
        try setTemperature(92)  // heating again: straight back up
        let state = monitor.sample(at: start + .seconds(13))
        #expect(state.level == .critical && state.rawLevel == .critical)
        try setTemperature(45)
        for second in stride(from: 14, through: 40, by: 1) { monitor.sample(at: start + .seconds(second)) }
        #expect(monitor.sample(at: start + .seconds(41)).level == .nominal)
    }

    @Test func batchConcurrencyFollowsTheLevel() {
        #expect(PressureLevel.allCases.map { $0.batchConcurrency(jobs: 4) } == [4, 4, 2, 1, 0])
        #expect(PressureLevel.serious.batchConcurrency(jobs: 1) == 1)
    }
}
