import MatteboxRuntime

/// How hard the machine is being pushed, in AVCaptureDevice.SystemPressureState's
/// levels: the capture session throttles at `serious`, stops at `shutdown`,
/// and batch processing runs fewer photos at once as the level rises.
package enum PressureLevel: Int, Sendable, Comparable, NamedCoding {
    case nominal = 0, fair, serious, critical, shutdown

    package static func < (lhs: PressureLevel, rhs: PressureLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    package var description: String {
        switch self {
        case .nominal: return "nominal"
        case .fair: return "fair"
        case .serious: return "serious"
        case .critical: return "critical"
        case .shutdown: return "shutdown"
        }
    }

    /// Photos a batch of `jobs` workers runs at once at this level: all of
    /// them up to fair, half at serious, one at critical, none (paused until
    /// the level drops) at shutdown.
    package func batchConcurrency(jobs: Int) -> Int {
        switch self {
        case .nominal, .fair: return jobs
        case .serious: return max(1, jobs / 2)
        case .critical: return 1
        case .shutdown: return 0
        }
    }
}
