import Foundation

/// The running mattebox executable: plugin discovery searches beside it, the
/// batch runner and the plugin scanner start it again as a child.
package enum HostExecutable {
    package static var path: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
