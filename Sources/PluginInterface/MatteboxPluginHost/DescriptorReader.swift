import CMatteboxPluginABI
import Foundation
import MatteboxCore
import MatteboxRuntime

/// Turns a descriptor a plugin returned into a PluginDescription, checking the
/// ABI version first and every pointer and string after, so a broken plugin is
/// rejected with a reason instead of crashing the host later.
enum DescriptorReader {
    static let hostMajor = UInt16(MBX_ABI_MAJOR)
    static let hostMinor = UInt16(MBX_ABI_MINOR)
    /// "1.3": the plugin ABI this host speaks.
    static let hostABI = "\(MBX_ABI_MAJOR).\(MBX_ABI_MINOR)"

    static func read(_ pointer: UnsafePointer<mbx_plugin_descriptor>, index: UInt32) throws -> PluginDescription {
        // Read the version fields first, before trusting the struct's size.
        let header = UnsafeRawPointer(pointer)
        let structSize = header.load(as: UInt32.self)
        let major = header.load(fromByteOffset: 4, as: UInt16.self)
        let minor = header.load(fromByteOffset: 6, as: UInt16.self)
        guard major == hostMajor else {
            throw MatteboxError(
                "built for plugin ABI \(major).\(minor) but this Mattebox speaks ABI \(hostMajor).\(hostMinor)",
                hint: "rebuild the plugin against this version's mattebox/plugin.h")
        }
        guard minor <= hostMinor else {
            throw MatteboxError(
                "built for plugin ABI \(major).\(minor), newer than this Mattebox's \(hostMajor).\(hostMinor)",
                hint: "upgrade Mattebox or rebuild the plugin against the older header")
        }
        guard structSize >= UInt32(MemoryLayout<mbx_plugin_descriptor>.size) else {
            throw MatteboxError("descriptor struct_size \(structSize) is smaller than ABI \(major).\(minor)'s")
        }
        let d = pointer.pointee
        guard let id = d.id.map(String.init(cString:)), isReverseDNS(id) else {
            throw MatteboxError("descriptor \(index) has no reverse-DNS id (like org.example.invert)")
        }
        guard d.create != nil, d.process != nil, d.destroy != nil else {
            throw MatteboxError("plugin \(id) lacks create, process or destroy")
        }
        guard let safety = ThreadSafety(rawValue: Int(d.thread_safety)) else {
            throw MatteboxError("plugin \(id) declares unknown thread safety \(d.thread_safety)")
        }
        return PluginDescription(
            id: id, name: text(d.name) ?? id, summary: text(d.description) ?? "",
            vendor: text(d.vendor) ?? "", license: text(d.license) ?? "",
            version: "\(d.version_major).\(d.version_minor).\(d.version_patch)",
            abiVersion: "\(major).\(minor)", threadSafety: safety,
            inputs: try ports(d.inputs, d.input_count, plugin: id),
            outputs: try ports(d.outputs, d.output_count, plugin: id),
            parameters: try parameters(d.params, d.param_count, plugin: id), index: index)
    }

    static func isReverseDNS(_ id: String) -> Bool {
        let parts = id.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count >= 2 && parts.allSatisfy { part in
            !part.isEmpty && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        }
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map(String.init(cString:))
    }

    private static let maximumTableSize: UInt32 = 256

    private static func ports(_ table: UnsafePointer<mbx_port>?, _ count: UInt32, plugin: String) throws
        -> [PortDescription]
    {
        guard count > 0 else { return [] }
        guard let table, count <= maximumTableSize else {
            throw MatteboxError("plugin \(plugin) declares \(count) ports without a valid table")
        }
        return try (0..<Int(count)).map { index in
            let port = table[index]
            guard let role = text(port.role).map({ ImageRole($0) }), role.isValidName else {
                throw MatteboxError("plugin \(plugin) port \(index) has no valid role name")
            }
            return PortDescription(
                role: role, optional: port.flags & UInt32(MBX_PORT_OPTIONAL) != 0,
                description: text(port.description) ?? "")
        }
    }

    private static func parameters(_ table: UnsafePointer<mbx_param_spec>?, _ count: UInt32, plugin: String) throws
        -> [ParameterSpec]
    {
        guard count > 0 else { return [] }
        guard let table, count <= maximumTableSize else {
            throw MatteboxError("plugin \(plugin) declares \(count) parameters without a valid table")
        }
        return try (0..<Int(count)).map { index in
            let spec = table[index]
            guard let key = text(spec.key), !key.isEmpty else {
                throw MatteboxError("plugin \(plugin) parameter \(index) has no key")
            }
            guard let type = ParameterType(rawValue: Int(spec.type)) else {
                throw MatteboxError("plugin \(plugin) parameter \(key) has unknown type \(spec.type)")
            }
            var values: [String] = []
            if type == .enumeration {
                guard let list = spec.enum_values, spec.enum_count > 0, spec.enum_count <= maximumTableSize else {
                    throw MatteboxError("plugin \(plugin) enum parameter \(key) lists no values")
                }
                values = try (0..<Int(spec.enum_count)).map { i in
                    guard let value = text(list[i]) else {
                        throw MatteboxError("plugin \(plugin) enum parameter \(key) has a null value")
                    }
                    return value
                }
            }
            let defaultValue: ParameterValue
            switch type {
            case .bool: defaultValue = .bool(spec.default_number != 0)
            case .int: defaultValue = .int(Int64(spec.default_number))
            case .double: defaultValue = .double(spec.default_number)
            case .string: defaultValue = .string(text(spec.default_string) ?? "")
            case .enumeration:
                let value = text(spec.default_string) ?? values[0]
                guard values.contains(value) else {
                    throw MatteboxError("plugin \(plugin) enum parameter \(key) defaults to \(value), not one of its values")
                }
                defaultValue = .string(value)
            }
            let numeric = type == .int || type == .double
            let hasRange = numeric && spec.min <= spec.max && !(spec.min == 0 && spec.max == 0)
            return ParameterSpec(
                key: key, description: text(spec.description) ?? "", type: type, defaultValue: defaultValue,
                minimum: hasRange ? spec.min : nil, maximum: hasRange ? spec.max : nil, enumValues: values,
                unit: text(spec.unit))
        }
    }
}
