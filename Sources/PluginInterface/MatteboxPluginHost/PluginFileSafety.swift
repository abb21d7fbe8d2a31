import Foundation
import MatteboxCore
import MatteboxRuntime

/// Refuses plugin files anyone but their owner could have replaced: a file or
/// folder writable by group or others, owned by someone other than root or the
/// current user, or reached through a symbolic link. Messages name the path and
/// its mode, so a too-open folder is easy to fix.
package enum PluginFileSafety {
    package static func check(_ path: String) throws {
        try checkEntry(path, kind: "plugin file", mustBeDirectory: false)
        try checkEntry((path as NSString).deletingLastPathComponent, kind: "plugin folder", mustBeDirectory: true)
    }

    private static func checkEntry(_ path: String, kind: String, mustBeDirectory: Bool) throws {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            throw MatteboxError("\(kind) \(path): \(String(cString: strerror(errno)))")
        }
        let type = status.st_mode & S_IFMT
        if type == S_IFLNK {
            throw MatteboxError("\(kind) \(path) is a symbolic link; refusing it", hint: "install the real file")
        }
        guard type == (mustBeDirectory ? S_IFDIR : S_IFREG) else {
            throw MatteboxError("\(kind) \(path) is not a regular \(mustBeDirectory ? "folder" : "file")")
        }
        let mode = status.st_mode & 0o7777
        if mode & 0o022 != 0 {
            let who = mode & 0o002 != 0 ? "world" : "group"
            throw MatteboxError(
                "\(kind) \(path) is \(who)-writable (mode \(String(mode, radix: 8))); refusing it",
                hint: "chmod go-w \(path)")
        }
        let owner = status.st_uid
        if owner != 0 && owner != geteuid() {
            throw MatteboxError(
                "\(kind) \(path) is owned by uid \(owner), neither root nor you (uid \(geteuid())); refusing it")
        }
    }
}
