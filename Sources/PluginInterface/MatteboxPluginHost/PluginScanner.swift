import Foundation
import MatteboxCore
import MatteboxRuntime

/// What scanning one plugin file found: its processors, or why it was refused.
package struct PluginScanResult: Codable, Sendable, Equatable {
    package enum Status: String, Codable, Sendable {
        case ok, rejected, crashed, timeout
    }

    package var path: String
    package var status: Status
    package var reason: String?
    package var plugins: [PluginDescription]

    /// A shared library without the plugin entry point (such as libMatteboxCVision.so beside the
    /// built-in plugins): not refused as a broken plugin, just not one.
    package var isNotAPlugin: Bool { status == .rejected && reason?.contains(PluginModule.notAPlugin) == true }

    package static func refused(_ path: String, _ status: Status, _ reason: String) -> PluginScanResult {
        PluginScanResult(path: path, status: status, reason: reason, plugins: [])
    }
}

/// Reads plugin descriptors in a child process, so a plugin that crashes or
/// hangs while loading is reported and skipped instead of taking the host down
/// (GStreamer's plugin scanner). The child is this same executable run as
/// `mattebox plugins scan-file PATH`, which prints one JSON result.
package struct PluginScanner: Sendable {
    package var command: [String]
    package var timeout: TimeInterval

    package init(command: [String], timeout: TimeInterval = 10) {
        self.command = command
        self.timeout = timeout
    }

    /// The scanner that re-runs the given mattebox executable.
    package static func using(executable: String) -> PluginScanner {
        PluginScanner(command: [executable, "plugins", "scan-file"])
    }

    package func scan(_ path: String) -> PluginScanResult {
        do {
            try PluginFileSafety.check(path)
        } catch {
            return .refused(path, .rejected, "\(error)")
        }
        // Swift's crash backtracer would catch a plugin's fault in the child and
        // could let it run on; with it off, a crash ends the child as it should.
        let child = ChildProcess(arguments: command + [path], environment: ["SWIFT_BACKTRACE": "enable=no"])
        switch child.run(timeout: timeout) {
        case .failedToStart(let reason):
            return .refused(path, .rejected, "the plugin scanner could not start: \(reason)")
        case .timedOut:
            return .refused(path, .timeout, "hung while being scanned (killed after \(Int(timeout)) s)")
        case .signalled(let signal):
            return .refused(path, .crashed, "crashed while being scanned (signal \(signal), \(signalName(signal)))")
        case .exited(let code, let output, let errors):
            if code == 0, let result = try? JSONDecoder().decode(PluginScanResult.self, from: output) {
                return result
            }
            let detail = String(decoding: errors, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return .refused(path, .crashed, "the scanner exited with status \(code) while loading it\(detail.isEmpty ? "" : ": \(detail)")")
        }
    }

    /// The scanner's own work, run inside the child: load and describe.
    package static func inspectInProcess(_ path: String) -> PluginScanResult {
        do {
            try PluginFileSafety.check(path)
            let module = try PluginModule(path: path)
            return PluginScanResult(path: path, status: .ok, reason: nil, plugins: module.plugins.map(\.description))
        } catch {
            return .refused(path, .rejected, "\(error)")
        }
    }

    private func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGSEGV: return "SIGSEGV"
        case SIGBUS: return "SIGBUS"
        case SIGABRT: return "SIGABRT"
        case SIGILL: return "SIGILL"
        case SIGFPE: return "SIGFPE"
        case SIGTRAP: return "SIGTRAP (a Swift runtime trap)"
        case SIGKILL: return "SIGKILL"
        default: return "signal"
        }
    }
}
