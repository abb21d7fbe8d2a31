import MatteboxPluginSDK
import Testing

/// A Swift processor as the host sees it through the C ABI: the descriptor
/// the SDK builds from a `ProcessorDescription`, read field by field.
@Suite struct DescriptorTests {
    final class Blur: PhotoProcessor {
        static let description = ProcessorDescription(
            id: "org.example.blur", name: "Blur", summary: "Blurs", vendor: "Example", license: "MIT",
            version: (2, 1, 3), threadSafety: .concurrent,
            inputs: [Port(role: MBX_ROLE_PRIMARY, description: "the photo")],
            outputs: [Port(role: MBX_ROLE_DEPTH, optional: true, description: "a depth map")],
            parameters: [
                Parameter("radius", .double(default: 2.5, range: 0...50), description: "blur radius", unit: "px"),
                Parameter("mode", .choice(default: "fast", values: ["fast", "exact"]), description: "how"),
            ])

        init(parameters: PluginParameters) throws {}
        func process(_ photo: PluginPhoto) throws {}
    }

    static func string(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }

    @Test func theDescriptorCarriesIdentityPortsAndTypedParameters() throws {
        let descriptor = try #require(PluginExport.descriptor(index: 0, host: nil, processors: [Blur.self])).pointee
        #expect(descriptor.struct_size == UInt32(MemoryLayout<mbx_plugin_descriptor>.size))
        #expect(descriptor.abi_major == UInt16(MBX_ABI_MAJOR) && descriptor.abi_minor == UInt16(MBX_ABI_MINOR))
        #expect(Self.string(descriptor.id) == "org.example.blur")
        #expect((descriptor.version_major, descriptor.version_minor, descriptor.version_patch) == (2, 1, 3))
        #expect(descriptor.input_count == 1 && Self.string(descriptor.inputs[0].role) == MBX_ROLE_PRIMARY)
        #expect(descriptor.output_count == 1 && descriptor.outputs[0].flags & MBX_PORT_OPTIONAL != 0)
        #expect(descriptor.param_count == 2)
        let radius = descriptor.params[0]
        #expect(Self.string(radius.key) == "radius" && radius.type == MBX_PARAM_DOUBLE)
        #expect(radius.default_number == 2.5 && radius.min == 0 && radius.max == 50 && Self.string(radius.unit) == "px")
        let mode = descriptor.params[1]
        #expect(mode.type == MBX_PARAM_ENUM && mode.enum_count == 2 && Self.string(mode.default_string) == "fast")
        #expect(Self.string(mode.enum_values[1]) == "exact")
        #expect(descriptor.create != nil && descriptor.process != nil && descriptor.destroy != nil)
    }

    @Test func anIndexPastTheLastProcessorIsNil() {
        #expect(PluginExport.descriptor(index: 1, host: nil, processors: [Blur.self]) == nil)
    }
}
