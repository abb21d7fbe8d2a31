import Foundation
import MatteboxCore
import MatteboxPressure
import MatteboxRuntime

/// The thermal governor, as AVCam's system-pressure handling: the camera's
/// frame rate throttled and costly stages (depth) skipped as the machine
/// heats, restored when it cools.
extension CaptureSession {
    func startGovernor() {
        guard let monitor, governor == nil else { return }
        let interval = policy.sampleInterval
        governor = Task { [weak self] in
            while !Task.isCancelled {
                let level = monitor.sample().level
                guard let self else { return }
                await self.apply(level)
                try? await Task.sleep(for: .seconds(interval))
            }
        }
    }

    /// Acts on a pressure level: throttle at once by dropping frames, then
    /// reprogram the device's interval once the level holds; stop at
    /// shutdown after the photos in flight; resume when it falls.
    package func apply(_ level: PressureLevel) async {
        let previous = pressure
        if level != previous {
            pressure = level
            emit(.systemPressure(level))
        }
        if level == .shutdown {
            guard state == .running else { return }
            await stopRecording(.systemPressure)
            state = .interrupted(.videoDeviceNotAvailableDueToSystemPressure)
            emit(.interrupted(.videoDeviceNotAvailableDueToSystemPressure))
            setReadiness()
            await drainPhotos()
            stopLoop()
            return
        }
        if case .interrupted(.videoDeviceNotAvailableDueToSystemPressure) = state {
            do {
                try restartLoop()
                state = .running
                emit(.interruptionEnded)
                setReadiness()
            } catch {
                scheduleRecovery()
            }
            return
        }
        guard state == .running, let loop else { return }
        // As AVCam: a movie being recorded keeps its frame rate; the throttle waits for it to end.
        if level >= .serious, recording == nil {
            if !throttled {
                throttled = true
                loop.limitFrameRate(to: policy.throttledFramesPerSecond)
                emit(.frameRate(min(policy.throttledFramesPerSecond, loop.interval?.framesPerSecond ?? 30)))
                throttledSince = Date()
            }
            let deviceRate = loop.interval?.framesPerSecond ?? 0
            if let since = throttledSince, Date().timeIntervalSince(since) >= policy.reprogramAfter,
                deviceRate > policy.throttledFramesPerSecond + 0.5, !busyCapturing, queue.isEmpty
            {
                try? restartLoop()
            }
        } else if level < .serious, throttled {
            throttled = false
            throttledSince = nil
            loop.limitFrameRate(to: nil)
            if !busyCapturing, recording == nil { try? restartLoop() }
        }
    }

    /// The auxiliary images pressure turns off, and the reason photos record.
    var pressureSkips: (roles: Set<ImageRole>, reason: String) {
        switch pressure {
        case .serious:
            return ([.depth, .disparity], "depth off under serious system pressure")
        case .critical, .shutdown:
            return (Set(ImageRole.depthRoles + ImageRole.mattes),
                    "depth and mattes off under critical system pressure")
        default:
            return ([], "")
        }
    }
}
