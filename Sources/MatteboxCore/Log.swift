import Foundation
import Synchronization

/// Severity of a log line; raw values match `mbx_log_level`.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug = 0, info = 1, warning = 2, error = 3

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    public var name: String {
        switch self {
        case .debug: return "debug"
        case .info: return "info"
        case .warning: return "warning"
        case .error: return "error"
        }
    }
}

/// Diagnostics on standard error, one line each, filtered by level
/// (`MATTEBOX_LOG=debug|info|warning|error`, default warning). Plugins log
/// through the host, so their lines carry their id.
public enum Log {
    private static let threshold = Mutex<LogLevel>(
        LogLevel.allCases.first { $0.name == ProcessInfo.processInfo.environment["MATTEBOX_LOG"] } ?? .warning)

    public static func setThreshold(_ level: LogLevel) { threshold.withLock { $0 = level } }

    public static func emit(_ level: LogLevel, _ message: String, category: String = "mattebox") {
        guard level >= threshold.withLock({ $0 }) else { return }
        FileHandle.standardError.write(Data("\(category): \(level.name): \(message)\n".utf8))
    }
}
