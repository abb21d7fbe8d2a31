import Foundation
import Synchronization

/// Connects Swift processors to the C ABI. A plugin module's exported entry
/// point forwards to `descriptor(index:host:processors:)`:
///
///     @_cdecl("mbx_plugin_get")
///     public func mbx_plugin_get(_ index: UInt32, _ host: UnsafePointer<mbx_host_api>?)
///         -> UnsafePointer<mbx_plugin_descriptor>? {
///         PluginExport.descriptor(index: index, host: host, processors: [MyProcessor.self])
///     }
///
/// Descriptors are built once and live as long as the module. Errors thrown by a
/// processor become a status and message; none crosses the boundary.
public enum PluginExport {
    // Unchecked: C descriptor pointers, built once and only read after, under the SDK's Mutex.
    private struct State: @unchecked Sendable {
        var host: UnsafePointer<mbx_host_api>?
        var descriptors: [UnsafePointer<mbx_plugin_descriptor>] = []
        var types: [UnsafeRawPointer: any PhotoProcessor.Type] = [:]
    }

    private static let state = Mutex(State())

    public static func descriptor(
        index: UInt32, host: UnsafePointer<mbx_host_api>?, processors: [any PhotoProcessor.Type]
    ) -> UnsafePointer<mbx_plugin_descriptor>? {
        let table = HostTable(pointer: host)
        let found = state.withLock { state -> DescriptorPointer in
            if let host = table.pointer { state.host = host }
            if state.descriptors.isEmpty {
                for type in processors {
                    let descriptor = DescriptorBuilder.build(type.description, create: create, process: process, destroy: destroy)
                    state.descriptors.append(descriptor)
                    state.types[UnsafeRawPointer(descriptor)] = type
                }
            }
            return DescriptorPointer(pointer: Int(index) < state.descriptors.count ? state.descriptors[Int(index)] : nil)
        }
        return found.pointer
    }

    // Unchecked: an immutable C descriptor, never written after it is built.
    private struct DescriptorPointer: @unchecked Sendable {
        let pointer: UnsafePointer<mbx_plugin_descriptor>?
    }

    /// A processor type with the host table it was registered under.
    // Unchecked: immutable once registered; read through the SDK's Mutex.
    private struct Registered: @unchecked Sendable {
        let host: UnsafePointer<mbx_host_api>
        let type: any PhotoProcessor.Type
    }

    // Unchecked: the host's function table pointer, set once at load and only read.
    private struct HostTable: @unchecked Sendable {
        let pointer: UnsafePointer<mbx_host_api>?
    }

    private static func lookup(_ descriptor: UnsafePointer<mbx_plugin_descriptor>?) -> Registered? {
        let key = descriptor.map { UnsafeRawPointer($0) }
        return state.withLock { state -> Registered? in
            guard let host = state.host, let key, let type = state.types[key] else { return nil }
            return Registered(host: host, type: type)
        }
    }

    private static var host: UnsafePointer<mbx_host_api>? { state.withLock { HostTable(pointer: $0.host) }.pointer }

    /// Maps a thrown error to a status, recording its message with the host.
    private static func report(_ error: Error, call: OpaquePointer?, host: UnsafePointer<mbx_host_api>) -> mbx_status {
        switch error {
        case let failure as HostServiceFailure:
            return failure.status
        case let failure as PluginError:
            host.pointee.set_error(call, failure.message)
            return failure.status
        default:
            host.pointee.set_error(call, "\(error)")
            return MBX_ERR_INTERNAL
        }
    }

    private static let create:
        @convention(c) (
            UnsafePointer<mbx_plugin_descriptor>?, OpaquePointer?, OpaquePointer?,
            UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        ) -> mbx_status = { descriptor, parameters, call, instance in
            guard let registered = PluginExport.lookup(descriptor), let instance else {
                return MBX_ERR_INVALID_ARGUMENT
            }
            let host = registered.host, type = registered.type
            do {
                let processor = try type.init(parameters: PluginParameters(host: host, handle: parameters))
                instance.pointee = Unmanaged.passRetained(processor as AnyObject).toOpaque()
                return MBX_OK
            } catch {
                return PluginExport.report(error, call: call, host: host)
            }
        }

    private static let process:
        @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, OpaquePointer?) -> mbx_status = {
            instance, call, photo in
            guard let instance, let host = PluginExport.host,
                let processor = Unmanaged<AnyObject>.fromOpaque(instance).takeUnretainedValue() as? any PhotoProcessor
            else { return MBX_ERR_INVALID_ARGUMENT }
            do {
                try processor.process(PluginPhoto(host: host, call: call, handle: photo))
                return MBX_OK
            } catch {
                return PluginExport.report(error, call: call, host: host)
            }
        }

    private static let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { instance in
        guard let instance else { return }
        Unmanaged<AnyObject>.fromOpaque(instance).release()
    }
}
