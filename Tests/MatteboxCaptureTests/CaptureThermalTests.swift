import Foundation
import MatteboxCapture
import MatteboxCore
import MatteboxPressure
import MatteboxRuntime
import MatteboxTestSupport
import Testing

/// A thermal zone made by the test heats up and cools down while a session
/// streams at 30 fps: at serious the kept frame rate falls to the throttle at
/// once and the device is reprogrammed, depth is skipped; at shutdown the
/// session stops and it comes back, one level per dwell, as it cools.
@Suite struct CaptureThermalTests {
    @Test func sessionThrottlesSkipsDepthStopsAndResumes() async throws {
        let rig = try CaptureRig()
        let zone = "sys/class/thermal/thermal_zone0/"
        for (name, value) in [("type", "x86_pkg_temp"), ("trip_point_0_type", "passive"), ("trip_point_0_temp", "80000"),
                              ("trip_point_1_type", "critical"), ("trip_point_1_temp", "105000"), ("temp", "45000")] {
            try rig.write(value, zone + name)
        }
        func heat(_ celsius: Int) throws { try rig.write("\(celsius * 1000)", zone + "temp") }
        /// Waits until the device runs at `rate`.
        func deviceRuns(at rate: Double) async -> Bool {
            await eventually { rig.io.frameInterval(CaptureRig.back)?.framesPerSecond == rate }
        }
        var policy = CaptureSession.PressurePolicy()
        policy.sampleInterval = 0.1
        policy.reprogramAfter = 0.5
        let sources = SystemPressureSources(root: rig.root)
        let monitor = PressureMonitor(sources: sources, dwell: .milliseconds(600))
        let pipeline = """
            stages:
              - plugin: org.mattebox.depth
              - plugin: org.mattebox.orientation
            """
        let session = try rig.session(pipeline: pipeline, monitor: monitor, policy: policy)
        let log = EventLog(session)
        try await session.startRunning()
        // Rates are measured on the frames' own timestamps over the stream's recent window; a
        // loaded machine can only lose frames, so the test waits (within the limit) for a window
        // that tells throttled from not, instead of sampling once after a fixed sleep.
        func streams(_ holds: @escaping ((kept: Int, defective: Int, throttled: Int, framesPerSecond: Double)) -> Bool) async -> Bool {
            await eventually { holds(await session.streamStatistics) }
        }
        let cool = await streams { $0.throttled == 0 && $0.framesPerSecond > 20.5 && $0.framesPerSecond < 30.5 }
        let coolStatistics = await session.streamStatistics
        #expect(cool, "streams at 30 fps when cool, saw \(coolStatistics)")
        let coolPhoto = try await session.capturePhoto(PhotoSettings(quality: .speed))
        #expect(coolPhoto.stages.first?.status == .ok)

        try heat(82)
        #expect(await log.wait { $0 == .systemPressure(.serious) })
        #expect(await log.wait { $0 == .frameRate(20) })
        #expect(await deviceRuns(at: 20), "device interval reprogrammed")
        let hot = await streams { $0.framesPerSecond > 10 && $0.framesPerSecond <= 20.5 }
        let hotStatistics = await session.streamStatistics
        #expect(hot, "throttled to at most 20 fps, saw \(hotStatistics)")
        let hotPhoto = try await session.capturePhoto(PhotoSettings(quality: .speed))
        #expect(hotPhoto.stages.first?.status == .skipped)
        #expect(hotPhoto.absenceReasons["depth"]?.contains("serious system pressure") == true)

        try heat(102)
        #expect(await log.wait { $0 == .interrupted(.videoDeviceNotAvailableDueToSystemPressure) })
        #expect(await session.readiness == .sessionNotRunning)
        await #expect(throws: MatteboxError.self) { try await session.capturePhoto() }

        try heat(45)
        // Shutdown → critical after one dwell: the session resumes (still throttled).
        #expect(await log.wait { $0 == .interruptionEnded })
        #expect(await log.wait { $0 == .systemPressure(.nominal) })
        #expect(await deviceRuns(at: 30), "device interval given back")
        let cooled = await streams { $0.throttled == 0 && $0.framesPerSecond > 20.5 && $0.framesPerSecond < 30.5 }
        let cooledStatistics = await session.streamStatistics
        #expect(cooled, "back to 30 fps, saw \(cooledStatistics)")
        let levels = log.all.compactMap { if case .systemPressure(let level) = $0 { return level } else { return nil } }
        #expect(levels.suffix(4) == [.critical, .serious, .fair, .nominal], "steps down one level at a time: \(levels)")
        await session.stopRunning()
    }
}
