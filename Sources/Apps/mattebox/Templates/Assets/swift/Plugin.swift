import MatteboxPluginSDK

/// {{TITLE}}: multiplies the primary image by `gain`; change process(_:) to do your work.
/// Thrown errors become the plugin's status and message at the boundary.
final class {{TYPE}}: PhotoProcessor {
    static let gain = Parameter("gain", .double(default: 1.2, range: 0...4), description: "what every sample is multiplied by", unit: "ratio")
    static let description = ProcessorDescription(
        id: "{{ID}}", name: "{{TITLE}}", summary: "Multiplies the primary image by a gain (made by mattebox plugins new)",
        vendor: "{{VENDOR}}", license: "MIT", version: (0, 1, 0), threadSafety: .concurrent,
        inputs: [Port(role: MBX_ROLE_PRIMARY, description: "an 8-bit photo")],
        outputs: [Port(role: MBX_ROLE_PRIMARY, description: "the photo, brighter or darker")], parameters: [gain])

    private let gain: Double

    init(parameters: PluginParameters) throws { gain = try parameters.double("gain") }

    func process(_ photo: PluginPhoto) throws {
        guard let image = photo.image(MBX_ROLE_PRIMARY) else {
            throw PluginError("the photo has no primary image", status: MBX_ERR_NOT_FOUND)
        }
        guard image.format == MBX_SAMPLE_U8 else {
            throw PluginError("only 8-bit photos are supported", status: MBX_ERR_UNSUPPORTED_FORMAT)
        }
        for y in 0..<image.height {
            let row = image.row(y, as: UInt8.self)
            for x in 0..<image.width * image.channels {
                row[x] = UInt8(min(255, (Double(row[x]) * gain).rounded()))
            }
        }
    }
}

@_cdecl("mbx_plugin_get")
public func mbx_plugin_get(_ index: UInt32, _ host: UnsafePointer<mbx_host_api>?) -> UnsafePointer<mbx_plugin_descriptor>? {
    PluginExport.descriptor(index: index, host: host, processors: [{{TYPE}}.self])
}
