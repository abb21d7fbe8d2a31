import MatteboxPluginSDK

/// The front-camera mirroring policy. As on iOS the preview is mirrored but the
/// stored photo is not (`natural`); selfie apps store what the preview showed
/// (`mirrored`); `auto` mirrors photos from front cameras only. The flip is
/// baked into the pixels of every image, or expressed as a mirrored EXIF
/// orientation (2, 4, 5, 7) that leaves the pixels untouched.
final class Mirroring: PhotoProcessor {
    static let description = ProcessorDescription(
        id: "org.mattebox.mirroring", name: "Mirroring",
        summary: "Applies the front-camera mirroring policy to the photo and its auxiliary images",
        vendor: "Mattebox", license: "MIT", version: (1, 0, 0), threadSafety: .concurrent,
        inputs: [Port(role: MBX_ROLE_PRIMARY, description: "the photo, with capture.position and capture.mirrored")],
        outputs: [Port(role: MBX_ROLE_PRIMARY, description: "the photo, mirrored as the policy says")],
        parameters: [
            Parameter(
                "policy", .choice(default: "natural", values: ["natural", "mirrored", "auto"]),
                description: "natural: the scene as others see it (iOS default); mirrored: as the preview showed it; auto: mirrored for front cameras, natural otherwise"),
            Parameter(
                "apply", .choice(default: "pixels", values: ["pixels", "exif"]),
                description: "pixels: flip every image; exif: keep pixels and write a mirrored EXIF orientation"),
        ])

    private let policy: String
    private let bakeIntoPixels: Bool

    init(parameters: PluginParameters) throws {
        policy = try parameters.string("policy")
        bakeIntoPixels = try parameters.string("apply") == "pixels"
    }

    func process(_ photo: PluginPhoto) throws {
        let position = photo.string(MBX_META_CAMERA_POSITION) ?? "unspecified"
        let wanted = policy == "mirrored" || (policy == "auto" && position == "front")
        let current = photo.int(MBX_META_MIRRORED) == 1
        guard wanted != current else { return }
        let tag = Int(photo.int(MBX_META_ORIENTATION) ?? 1)
        guard let orientation = ExifOrientation(tag) else {
            throw PluginError("EXIF orientation \(tag) is not 1...8", status: MBX_ERR_INVALID_ARGUMENT)
        }
        if bakeIntoPixels {
            // A left-right mirror of what is displayed is a top-bottom flip of the
            // stored pixels when the orientation turns them a quarter.
            let flip = orientation.swapsDimensions ? MBX_TRANSFORM_FLIP_VERTICAL : MBX_TRANSFORM_FLIP_HORIZONTAL
            try photo.transform(mbx_transform(flip))
        } else {
            try photo.setInt(MBX_META_ORIENTATION, Int64(orientation.mirroredOnDisplay.rawValue))
        }
        try photo.setInt(MBX_META_MIRRORED, wanted ? 1 : 0)
    }
}

@_cdecl("mbx_plugin_get")
public func mbx_plugin_get(_ index: UInt32, _ host: UnsafePointer<mbx_host_api>?) -> UnsafePointer<mbx_plugin_descriptor>? {
    PluginExport.descriptor(index: index, host: host, processors: [Mirroring.self])
}
