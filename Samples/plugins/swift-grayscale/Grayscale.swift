import MatteboxPluginSDK

/// A sample Mattebox plugin in Swift: blends the primary image towards its
/// Rec. 709 luma. It shows the SDK: a description, typed parameters, pixel
/// rows, and errors that become a status and message at the boundary.
final class Grayscale: PhotoProcessor {
    static let description = ProcessorDescription(
        id: "org.mattebox.samples.grayscale", name: "Grayscale (Swift sample)",
        summary: "Blends the primary image towards grey; a sample plugin written with the Swift SDK",
        vendor: "Mattebox samples", license: "MIT", version: (1, 0, 0), threadSafety: .concurrent,
        inputs: [Port(role: MBX_ROLE_PRIMARY, description: "an 8-bit RGB photo")],
        outputs: [Port(role: MBX_ROLE_PRIMARY, description: "the photo, greyed")],
        parameters: [
            Parameter(
                "strength", .double(default: 1, range: 0...1),
                description: "0 leaves colours, 1 makes the photo fully grey", unit: "ratio")
        ])

    private let strength: Double

    init(parameters: PluginParameters) throws {
        strength = try parameters.double("strength")
    }

    func process(_ photo: PluginPhoto) throws {
        guard let image = photo.image(MBX_ROLE_PRIMARY) else {
            throw PluginError("the photo has no primary image", status: MBX_ERR_NOT_FOUND)
        }
        guard image.format == MBX_SAMPLE_U8, image.channels == 3 else {
            throw PluginError("only 8-bit RGB photos are supported", status: MBX_ERR_UNSUPPORTED_FORMAT)
        }
        let keep = 1 - strength
        for y in 0..<image.height {
            let row = image.row(y, as: UInt8.self)
            for x in 0..<image.width {
                let r = Double(row[3 * x]), g = Double(row[3 * x + 1]), b = Double(row[3 * x + 2])
                let luma = 0.2126 * r + 0.7152 * g + 0.0722 * b
                row[3 * x] = UInt8((keep * r + strength * luma).rounded())
                row[3 * x + 1] = UInt8((keep * g + strength * luma).rounded())
                row[3 * x + 2] = UInt8((keep * b + strength * luma).rounded())
            }
        }
    }
}

@_cdecl("mbx_plugin_get")
public func mbx_plugin_get(_ index: UInt32, _ host: UnsafePointer<mbx_host_api>?) -> UnsafePointer<mbx_plugin_descriptor>? {
    PluginExport.descriptor(index: index, host: host, processors: [Grayscale.self])
}
