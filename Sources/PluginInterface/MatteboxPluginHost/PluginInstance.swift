import CMatteboxPluginABI
import Foundation
import MatteboxCore
import MatteboxRuntime

/// A plugin instance made from validated parameters: the host's handle on
/// create/process/destroy. A failing call becomes a MatteboxError that names
/// the plugin and carries the plugin's own message.
// Unchecked: a C handle, called from one thread at a time unless the plugin declares MBX_THREAD_SAFETY_CONCURRENT.
package final class PluginInstance: @unchecked Sendable {
    package let description: PluginDescription
    private let descriptor: UnsafePointer<mbx_plugin_descriptor>
    private let handle: UnsafeMutableRawPointer?
    /// Serialises process() for plugins that are not safe to call concurrently.
    private let lock = NSLock()

    package init(module: PluginModule, id: String, parameters: [String: ParameterValue]) throws {
        guard let entry = module.descriptor(for: id) else {
            throw MatteboxError("\(module.path) does not provide plugin \(id)")
        }
        let descriptor = entry.descriptor
        description = entry.description
        self.descriptor = descriptor
        var complete: [String: ParameterValue] = [:]
        for spec in description.parameters { complete[spec.key] = parameters[spec.key] ?? spec.defaultValue }
        let parameterContext = ParameterContext(values: complete)
        let call = CallContext(pluginID: id)
        var instance: UnsafeMutableRawPointer?
        let status = withExtendedLifetime(parameterContext) {
            descriptor.pointee.create!(descriptor, parameterContext.opaque, call.opaque, &instance)
        }
        guard status == MBX_OK else {
            throw MatteboxError(
                "plugin \(id) refused its parameters: \(call.errorMessage ?? PluginStatus.name(status))")
        }
        handle = instance
    }

    deinit { descriptor.pointee.destroy!(handle) }

    /// Runs the plugin on the photo in place, its pixel and format requests done
    /// by `services`; on failure the photo is left as the plugin left it, so
    /// callers that must roll back keep a copy.
    package func process(_ photo: inout Photo, services: any PhotoServices) throws {
        let context = PhotoContext(photo: photo, services: services)
        let call = CallContext(pluginID: description.id)
        let status: mbx_status
        if description.threadSafety == .concurrent {
            status = descriptor.pointee.process!(handle, call.opaque, context.opaque)
        } else {
            status = lock.withLock { descriptor.pointee.process!(handle, call.opaque, context.opaque) }
        }
        photo = context.photo
        guard status == MBX_OK else {
            let message = call.errorMessage ?? context.lastServiceError ?? "no message"
            throw MatteboxError("stage \(description.id) could not process the photo (\(PluginStatus.reason(status))): \(message)")
        }
    }
}

/// Names of `mbx_status` codes for messages.
enum PluginStatus {
    /// Why a photo failed a stage, in a user's words (not found reads like a missing plugin).
    static func reason(_ status: mbx_status) -> String {
        status == MBX_ERR_NOT_FOUND ? "the photo lacks what it needs" : name(status)
    }


    static func name(_ status: mbx_status) -> String {
        switch status {
        case MBX_OK: return "ok"
        case MBX_ERR_INVALID_ARGUMENT: return "invalid argument"
        case MBX_ERR_UNSUPPORTED_FORMAT: return "unsupported format"
        case MBX_ERR_OUT_OF_MEMORY: return "out of memory"
        case MBX_ERR_NOT_FOUND: return "not found"
        case MBX_ERR_CANCELLED: return "cancelled"
        case MBX_ERR_INTERNAL: return "internal error"
        default: return "status \(status)"
        }
    }
}
