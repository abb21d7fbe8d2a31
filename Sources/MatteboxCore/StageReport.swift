/// What one stage did to one photo, with how long it took: the record a
/// pipeline leaves for reports (`process --json`, capture results).
public struct StageReport: Sendable, Codable, Equatable {
    public enum Status: String, Sendable, Codable {
        case ok, skipped, failed
    }

    public var plugin: String
    public var status: Status
    public var seconds: Double
    public var message: String?
    /// The process's peak resident memory while the stage ran, MiB (`PeakMemory`).
    public var peakMiB: Double?

    public init(plugin: String, status: Status, seconds: Double, message: String?, peakMiB: Double? = nil) {
        self.plugin = plugin
        self.status = status
        self.seconds = seconds
        self.message = message
        self.peakMiB = peakMiB
    }
}
