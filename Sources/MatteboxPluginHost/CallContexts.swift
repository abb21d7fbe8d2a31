import Foundation
import MatteboxCore

/// The host objects behind the ABI's opaque pointers. A plugin sees only
/// `mbx_call *`, `mbx_photo *` and `mbx_params *`; these classes are what they
/// point to, and they keep every string handed to the plugin alive for the call.
final class CallContext {
    let pluginID: String
    var errorMessage: String?

    init(pluginID: String) { self.pluginID = pluginID }

    var opaque: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ pointer: OpaquePointer?) -> CallContext? {
        pointer.map { Unmanaged<CallContext>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
    }
}

/// Owns C strings given to a plugin until the call ends.
class StringArena {
    private var strings: [UnsafeMutablePointer<CChar>] = []

    func keep(_ text: String) -> UnsafePointer<CChar> {
        let copy = strdup(text)!
        strings.append(copy)
        return UnsafePointer(copy)
    }

    deinit { strings.forEach { free($0) } }
}

final class PhotoContext: StringArena {
    var photo: Photo
    /// The last failure of a host service, reported when the plugin gives no message.
    var lastServiceError: String?

    init(photo: Photo) { self.photo = photo }

    var opaque: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ pointer: OpaquePointer?) -> PhotoContext? {
        pointer.map { Unmanaged<PhotoContext>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
    }
}

final class ParameterContext: StringArena {
    let values: [String: ParameterValue]

    init(values: [String: ParameterValue]) { self.values = values }

    var opaque: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ pointer: OpaquePointer?) -> ParameterContext? {
        pointer.map { Unmanaged<ParameterContext>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
    }
}
