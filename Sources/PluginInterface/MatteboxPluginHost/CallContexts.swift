import Foundation
import MatteboxCore

/// The host objects behind the ABI's opaque pointers. A plugin sees only
/// `mbx_call *`, `mbx_photo *` and `mbx_params *`; these classes are what they
/// point to, and they keep every string handed to the plugin alive for the call.
protocol OpaqueHandle: AnyObject {}

extension OpaqueHandle {
    /// This object as the opaque pointer a plugin receives (not retained: the
    /// host keeps the object alive for the duration of the call).
    var opaque: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ pointer: OpaquePointer?) -> Self? {
        pointer.map { Unmanaged<Self>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
    }
}

final class CallContext: OpaqueHandle {
    let pluginID: String
    var errorMessage: String?

    init(pluginID: String) { self.pluginID = pluginID }
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

final class PhotoContext: StringArena, OpaqueHandle {
    var photo: Photo
    /// What the services do to pixels and formats.
    let services: any PhotoServices
    /// The last failure of a host service, reported when the plugin gives no message.
    var lastServiceError: String?

    init(photo: Photo, services: any PhotoServices) {
        self.photo = photo
        self.services = services
    }
}

final class ParameterContext: StringArena, OpaqueHandle {
    let values: [String: ParameterValue]

    init(values: [String: ParameterValue]) { self.values = values }
}
