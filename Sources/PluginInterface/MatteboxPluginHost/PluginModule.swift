import CMatteboxPluginABI
import Foundation
import MatteboxCore
import MatteboxRuntime

/// A plugin shared object loaded into this process. Modules are never unloaded:
/// Swift code cannot be safely dlclose'd, and descriptors must stay valid.
// Unchecked: a dlopen handle and entry point; never unloaded, only read.
package final class PluginModule: @unchecked Sendable {
    package let path: String
    private let entry: mbx_plugin_get_fn
    /// The descriptors, read and validated once at load.
    package let plugins: [(description: PluginDescription, descriptor: UnsafePointer<mbx_plugin_descriptor>)]

    /// The most processors one module may declare; a loop past this is a bug.
    static let maximumPluginsPerModule: UInt32 = 64
    /// Said of a library without the entry point (a helper library beside the plugins).
    static let notAPlugin = "not a Mattebox plugin"

    /// Loads the shared object and reads every descriptor it offers.
    package init(path: String) throws {
        self.path = path
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown dlopen error"
            throw MatteboxError("cannot load: \(reason)")
        }
        guard let symbol = dlsym(handle, MBX_ENTRY_POINT_NAME) else {
            throw MatteboxError(
                "missing entry point \(MBX_ENTRY_POINT_NAME); \(PluginModule.notAPlugin)",
                hint: "a plugin exports mbx_plugin_get, see mattebox/plugin.h")
        }
        entry = unsafeBitCast(symbol, to: mbx_plugin_get_fn.self)
        var found: [(PluginDescription, UnsafePointer<mbx_plugin_descriptor>)] = []
        var index: UInt32 = 0
        while let descriptor = entry(index, HostServices.table) {
            guard index < PluginModule.maximumPluginsPerModule else {
                throw MatteboxError("declares more than \(PluginModule.maximumPluginsPerModule) processors")
            }
            found.append((try DescriptorReader.read(descriptor, index: index), descriptor))
            index += 1
        }
        guard !found.isEmpty else { throw MatteboxError("\(MBX_ENTRY_POINT_NAME) offers no processor") }
        plugins = found
    }

    /// The validated descriptor for a plugin id in this module.
    func descriptor(for id: String) -> (description: PluginDescription, descriptor: UnsafePointer<mbx_plugin_descriptor>)? {
        plugins.first { $0.description.id == id }
    }
}
