/// What one stage did to one photo, with how long it took: the record a
/// pipeline leaves for reports (`process --json`, capture results).
package struct StageReport: Sendable, Codable, Equatable {
    package enum Status: String, Sendable, Codable {
        case ok, skipped, failed
    }

    package var plugin: String
    package var status: Status
    package var seconds: Double
    package var message: String?
    /// The process's peak resident memory while the stage ran, MiB (`PeakMemory`).
    package var peakMiB: Double?

    package init(plugin: String, status: Status, seconds: Double, message: String?, peakMiB: Double? = nil) {
        self.plugin = plugin
        self.status = status
        self.seconds = seconds
        self.message = message
        self.peakMiB = peakMiB
    }
}
