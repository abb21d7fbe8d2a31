import Foundation

/// The root sysfs and procfs are read under, shared by pressure monitoring and
/// camera discovery: MATTEBOX_SYSTEM_ROOT when set (a tree made by a test or a
/// demo), else `/`.
package enum SystemRoot {
    package static var fromEnvironment: URL {
        let path = ProcessInfo.processInfo.environment["MATTEBOX_SYSTEM_ROOT"] ?? ""
        return URL(fileURLWithPath: path.isEmpty ? "/" : path)
    }
}
