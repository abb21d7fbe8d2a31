import Foundation
import MatteboxPluginHost

/// Where this executable lives and the plugins it can see; shared by every
/// subcommand so they discover plugins the same way.
enum HostEnvironment {
    static var executablePath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    static var searchPath: PluginSearchPath { .standard(executable: executablePath) }

    static func discoverPlugins() -> PluginRegistry {
        PluginRegistry.discover(searchPath: searchPath, scanner: .using(executable: executablePath))
    }
}
