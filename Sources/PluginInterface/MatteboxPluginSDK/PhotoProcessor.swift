/// What a Swift plugin author implements: a description, an initialiser from
/// validated parameters, and a process step over one photo. Throwing a
/// PluginError (or any error) fails that photo with the error's message.
public protocol PhotoProcessor: AnyObject {
    static var description: ProcessorDescription { get }
    init(parameters: PluginParameters) throws
    func process(_ photo: PluginPhoto) throws
}

/// An error with the ABI status it maps to; other errors map to INTERNAL.
public struct PluginError: Error, CustomStringConvertible {
    public var status: mbx_status
    public var message: String

    public init(_ message: String, status: mbx_status = MBX_ERR_INTERNAL) {
        self.message = message
        self.status = status
    }

    public var description: String { message }
}

/// Parameter values for `init(parameters:)`, already validated by the host.
public struct PluginParameters {
    let host: UnsafePointer<mbx_host_api>
    let handle: OpaquePointer?

    public func bool(_ key: String) throws -> Bool {
        var value: Int32 = 0
        try check(host.pointee.param_bool(handle, key, &value), key)
        return value != 0
    }

    public func int(_ key: String) throws -> Int64 {
        var value: Int64 = 0
        try check(host.pointee.param_int(handle, key, &value), key)
        return value
    }

    public func double(_ key: String) throws -> Double {
        var value = 0.0
        try check(host.pointee.param_double(handle, key, &value), key)
        return value
    }

    public func string(_ key: String) throws -> String {
        var value: UnsafePointer<CChar>?
        try check(host.pointee.param_string(handle, key, &value), key)
        return value.map { String(cString: $0) } ?? ""
    }

    private func check(_ status: mbx_status, _ key: String) throws {
        guard status == MBX_OK else {
            throw PluginError("parameter \(key) is missing or of another type", status: status)
        }
    }
}
