import MatteboxPluginSDK

/// Normalises the eight EXIF orientations: rotates and mirrors the pixels of
/// the primary and every auxiliary image upright and sets the tag to 1 (or,
/// with mode=keep, leaves pixels as they are and only carries the tag).
/// Optionally strips GPS location from the EXIF that will be written.
final class Orientation: PhotoProcessor {
    static let description = ProcessorDescription(
        id: "org.mattebox.orientation", name: "Orientation",
        summary: "Turns photos upright from their EXIF orientation, keeping depth and mattes registered",
        vendor: "Mattebox", license: "MIT", version: (1, 0, 0), threadSafety: .concurrent,
        inputs: [Port(role: MBX_ROLE_PRIMARY, description: "the photo")],
        outputs: [Port(role: MBX_ROLE_PRIMARY, description: "the photo, upright, orientation tag 1")],
        parameters: [
            Parameter(
                "mode", .choice(default: "normalize", values: ["normalize", "keep"]),
                description: "normalize: rotate pixels upright and set the tag to 1; keep: leave pixels, carry the tag"),
            Parameter(
                "strip-location", .bool(default: false),
                description: "remove GPS location from the EXIF written with the photo"),
        ])

    private let normalize: Bool
    private let stripLocation: Bool

    init(parameters: PluginParameters) throws {
        normalize = try parameters.string("mode") == "normalize"
        stripLocation = try parameters.bool("strip-location")
    }

    func process(_ photo: PluginPhoto) throws {
        if stripLocation { try photo.removeMetadata(MBX_META_LOCATION) }
        guard normalize else { return }
        let tag = Int(photo.int(MBX_META_ORIENTATION) ?? 1)
        guard let orientation = ExifOrientation(tag) else {
            throw PluginError("EXIF orientation \(tag) is not 1...8", status: MBX_ERR_INVALID_ARGUMENT)
        }
        // Stored pixels are displayed mirrored first, then turned clockwise.
        if orientation.isMirrored { try photo.transform(mbx_transform(MBX_TRANSFORM_FLIP_HORIZONTAL)) }
        switch orientation.clockwiseQuarterTurns {
        case 1: try photo.transform(mbx_transform(MBX_TRANSFORM_ROTATE_90))
        case 2: try photo.transform(mbx_transform(MBX_TRANSFORM_ROTATE_180))
        case 3: try photo.transform(mbx_transform(MBX_TRANSFORM_ROTATE_270))
        default: break
        }
        try photo.setInt(MBX_META_ORIENTATION, 1)
    }
}

@_cdecl("mbx_plugin_get")
public func mbx_plugin_get(_ index: UInt32, _ host: UnsafePointer<mbx_host_api>?) -> UnsafePointer<mbx_plugin_descriptor>? {
    PluginExport.descriptor(index: index, host: host, processors: [Orientation.self])
}
