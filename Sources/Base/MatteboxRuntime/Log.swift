import Foundation
import Logging
import Synchronization

/// Severity of a log line; raw values match `mbx_log_level`.
package enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug = 0, info = 1, warning = 2, error = 3

    package static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    package var name: String {
        switch self {
        case .debug: return "debug"
        case .info: return "info"
        case .warning: return "warning"
        case .error: return "error"
        }
    }

    /// The swift-log level this stands for.
    var loggerLevel: Logger.Level {
        switch self {
        case .debug: return .debug
        case .info: return .info
        case .warning: return .warning
        case .error: return .error
        }
    }

    init(_ level: Logger.Level) {
        switch level {
        case .trace, .debug: self = .debug
        case .info, .notice: self = .info
        case .warning: self = .warning
        case .error, .critical: self = .error
        }
    }
}

/// Diagnostics on standard error, one line each (`category: level: message`),
/// through swift-log, so libraries that log with swift-log land in the same
/// place. One threshold governs every line: `MATTEBOX_LOG=debug|info|warning|error`
/// (default warning) sets it at start, `setThreshold` (the CLI's verbosity)
/// changes it. Plugins log through the host, so their lines carry their id.
package enum Log {
    private static let threshold = Mutex<LogLevel>(
        LogLevel.allCases.first { $0.name == ProcessInfo.processInfo.environment["MATTEBOX_LOG"] } ?? .warning)

    /// swift-log is bootstrapped once per process, on the first line logged.
    private static let bootstrapped: Bool = {
        LoggingSystem.bootstrap { label in StandardErrorLineHandler(label: label) }
        return true
    }()

    package static var currentThreshold: LogLevel { threshold.withLock { $0 } }

    package static func setThreshold(_ level: LogLevel) { threshold.withLock { $0 = level } }

    /// A swift-log logger whose lines carry `category`.
    package static func logger(_ category: String = "mattebox") -> Logger {
        _ = bootstrapped
        return Logger(label: category)
    }

    package static func emit(_ level: LogLevel, _ message: String, category: String = "mattebox") {
        guard level >= currentThreshold else { return }
        logger(category).log(level: level.loggerLevel, "\(message)")
    }

    /// Writes one line; the threshold was checked by the logger's level.
    fileprivate static func write(_ level: LogLevel, _ message: String, label: String) {
        FileHandle.standardError.write(Data("\(label): \(level.name): \(message)\n".utf8))
    }
}

/// The swift-log handler behind `Log`: whole lines on standard error, at the
/// level `Log` holds (the handler's own level follows it, so a logger made
/// before the threshold changed still obeys it).
struct StandardErrorLineHandler: LogHandler {
    let label: String
    var metadata: Logger.Metadata = [:]

    var logLevel: Logger.Level {
        get { Log.currentThreshold.loggerLevel }
        set { Log.setThreshold(LogLevel(newValue)) }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        Log.write(LogLevel(event.level), "\(event.message)", label: label)
    }
}

extension Log {
    /// Says once when MATTEBOX_LOG holds something that is not a level,
    /// instead of ignoring it.
    package static func warnAboutEnvironment() {
        guard let value = ProcessInfo.processInfo.environment["MATTEBOX_LOG"], !value.isEmpty,
            !LogLevel.allCases.contains(where: { $0.name == value })
        else { return }
        emit(.warning, "MATTEBOX_LOG=\(value) is not one of debug, info, warning, error; using \(currentThreshold.name)")
    }
}
