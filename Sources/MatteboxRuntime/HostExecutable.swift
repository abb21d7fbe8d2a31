import Foundation

/// The running mattebox executable: plugin discovery searches beside it, the
/// batch runner and the plugin scanner start it again as a child.
public enum HostExecutable {
    public static var path: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
