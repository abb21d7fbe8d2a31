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

    public init(plugin: String, status: Status, seconds: Double, message: String?) {
        self.plugin = plugin
        self.status = status
        self.seconds = seconds
        self.message = message
    }
}
