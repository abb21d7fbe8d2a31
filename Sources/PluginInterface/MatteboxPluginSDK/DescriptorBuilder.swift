import Foundation

/// Lays a ProcessorDescription out as the C structs of mattebox/plugin.h, in
/// memory that is never freed (descriptors live as long as the module).
enum DescriptorBuilder {
    typealias Create = @convention(c) (
        UnsafePointer<mbx_plugin_descriptor>?, OpaquePointer?, OpaquePointer?,
        UnsafeMutablePointer<UnsafeMutableRawPointer?>?
    ) -> mbx_status
    typealias Process = @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, OpaquePointer?) -> mbx_status
    typealias Destroy = @convention(c) (UnsafeMutableRawPointer?) -> Void

    static func build(_ info: ProcessorDescription, create: Create, process: Process, destroy: Destroy)
        -> UnsafePointer<mbx_plugin_descriptor>
    {
        var d = mbx_plugin_descriptor()
        d.struct_size = UInt32(MemoryLayout<mbx_plugin_descriptor>.size)
        d.abi_major = UInt16(MBX_ABI_MAJOR)
        d.abi_minor = UInt16(MBX_ABI_MINOR)
        d.id = text(info.id)
        d.name = text(info.name)
        d.description = text(info.summary)
        d.vendor = text(info.vendor)
        d.license = text(info.license)
        d.version_major = info.version.major
        d.version_minor = info.version.minor
        d.version_patch = info.version.patch
        d.thread_safety = info.threadSafety.rawValue
        d.inputs = table(info.inputs.map(port))
        d.input_count = UInt32(info.inputs.count)
        d.outputs = table(info.outputs.map(port))
        d.output_count = UInt32(info.outputs.count)
        d.params = table(info.parameters.map(spec))
        d.param_count = UInt32(info.parameters.count)
        d.create = create
        d.process = process
        d.destroy = destroy
        return UnsafePointer(table([d])!)
    }

    private static func text(_ string: String?) -> UnsafePointer<CChar>? {
        string.map { UnsafePointer(strdup($0)!) }
    }

    private static func table<Element>(_ elements: [Element]) -> UnsafePointer<Element>? {
        guard !elements.isEmpty else { return nil }
        let memory = UnsafeMutablePointer<Element>.allocate(capacity: elements.count)
        memory.initialize(from: elements, count: elements.count)
        return UnsafePointer(memory)
    }

    private static func port(_ port: Port) -> mbx_port {
        mbx_port(
            struct_size: UInt32(MemoryLayout<mbx_port>.size), role: text(port.role),
            flags: port.optional ? UInt32(MBX_PORT_OPTIONAL) : 0, description: text(port.description))
    }

    private static func spec(_ parameter: Parameter) -> mbx_param_spec {
        var spec = mbx_param_spec()
        spec.struct_size = UInt32(MemoryLayout<mbx_param_spec>.size)
        spec.key = text(parameter.key)
        spec.description = text(parameter.description)
        spec.unit = text(parameter.unit)
        switch parameter.kind {
        case .bool(let value):
            spec.type = mbx_param_type(MBX_PARAM_BOOL)
            spec.default_number = value ? 1 : 0
        case .int(let value, let range):
            spec.type = mbx_param_type(MBX_PARAM_INT)
            spec.default_number = Double(value)
            spec.min = Double(range.lowerBound)
            spec.max = Double(range.upperBound)
        case .double(let value, let range):
            spec.type = mbx_param_type(MBX_PARAM_DOUBLE)
            spec.default_number = value
            spec.min = range.lowerBound
            spec.max = range.upperBound
        case .string(let value):
            spec.type = mbx_param_type(MBX_PARAM_STRING)
            spec.default_string = text(value)
        case .choice(let value, let values):
            spec.type = mbx_param_type(MBX_PARAM_ENUM)
            spec.default_string = text(value)
            spec.enum_values = table(values.map { text($0) })
            spec.enum_count = UInt32(values.count)
        }
        return spec
    }
}
