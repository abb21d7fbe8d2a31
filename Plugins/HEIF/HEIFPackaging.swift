import Foundation
import MatteboxPluginSDK

/// The HEIF packaging stage: the last stage of a pipeline that should write
/// its photos as HEIF with every auxiliary image earlier stages produced. It
/// checks what will be packaged and tells the sink how (HEIC or AVIF, quality,
/// encoder preset, thumbnail), through the `output.*` metadata keys; the host's
/// HEIF writer lays out the file the way iPhones do.
///
/// Orientation is stored as HEIF transforms (irot/imir) on every image item;
/// put org.mattebox.orientation before this stage to turn pixels upright.
final class HEIFPackaging: PhotoProcessor {
    static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower"]
    static let packagedRoles = StandardRoles.depth + StandardRoles.mattes

    static let description = ProcessorDescription(
        id: "org.mattebox.heif", name: "HEIF packaging",
        summary: "Writes the photo as HEIF with depth, disparity and mattes as iPhone-style auxiliary images",
        vendor: "Mattebox", license: "MIT", version: (1, 0, 0), threadSafety: .concurrent,
        inputs: [Port(role: MBX_ROLE_PRIMARY, description: "the photo")]
            + packagedRoles.map { Port(role: $0, optional: true, description: "packaged as an auxiliary image") },
        // It changes no pixels: it only tells the writer how to write them.
        outputs: [],
        parameters: [
            Parameter(
                "format", .choice(default: "auto", values: ["auto", "heic", "avif"]),
                description: "heic: HEVC images, as iPhones write; avif: AV1 images, the same layout; auto: heic unless the run asks for avif (--format avif)"),
            Parameter(
                "quality", .int(default: 0, range: 0...100),
                description: "encoder quality of every image, 1-100; 0: the run's --quality, else the format's own default (HEIC 75, AVIF 90)"),
            Parameter(
                "preset", .choice(default: "auto", values: ["auto"] + presets),
                description: "encoder speed as x265 names it (AVIF maps it to aom's speed); auto follows the capture's quality prioritisation (speed: ultrafast, balanced: fast, quality: slow)"),
            Parameter(
                "thumbnail-size", .int(default: 320, range: 0...1024),
                description: "longest side of the thumbnail item; 0 writes none", unit: "px"),
            Parameter(
                "when", .choice(default: "always", values: ["always", "with-auxiliary"]),
                description: "always: write HEIF; with-auxiliary: only when the photo has depth or mattes or came as HEIF, else leave the format to the run (a JPEG with no face stays JPEG)"),
            Parameter(
                "require", .string(default: ""),
                description: "comma-separated roles the photo must have (e.g. \"depth,portraitMatte\"); a photo without them fails"),
        ])

    private let format: String
    private let quality: Int64
    private let preset: String
    private let thumbnailSize: Int64
    private let required: [String]
    private let onlyWithAuxiliary: Bool

    init(parameters: PluginParameters) throws {
        // "heif" leaves the codec to the run: HEIC, or AVIF when it asks for AVIF.
        format = try parameters.string("format") == "auto" ? "heif" : try parameters.string("format")
        quality = try parameters.int("quality")
        preset = try parameters.string("preset")
        thumbnailSize = try parameters.int("thumbnail-size")
        onlyWithAuxiliary = try parameters.string("when") == "with-auxiliary"
        required = try parameters.string("require").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func process(_ photo: PluginPhoto) throws {
        let present = Set(photo.roles)
        let missing = required.filter { !present.contains($0) }
        guard missing.isEmpty else {
            throw PluginError(
                "the photo has no \(missing.joined(separator: ", ")) to package (it has: \(photo.roles.joined(separator: ", ")))",
                status: MBX_ERR_NOT_FOUND)
        }
        let auxiliary = photo.roles.filter { $0 != MBX_ROLE_PRIMARY && $0 != MBX_ROLE_THUMBNAIL }
        if onlyWithAuxiliary, auxiliary.isEmpty, photo.string(MBX_META_INPUT_FORMAT) != "heic" {
            photo.log("nothing to package beside the primary: the format is left to the run", level: mbx_log_level(MBX_LOG_DEBUG))
            return
        }
        // auto: a HEIF format the photo already asks for (a capture's own request) stays; else "heif",
        // which the writer makes the run's HEIF format (AVIF with --format avif, else HEIC).
        let asked = photo.string(MBX_META_OUTPUT_FORMAT)
        let chosen = format == "heif" && (asked == "heic" || asked == "avif") ? asked! : format
        try photo.setString(MBX_META_OUTPUT_FORMAT, chosen)
        if quality > 0 { try photo.setInt(MBX_META_OUTPUT_QUALITY, quality) }
        try photo.setInt(MBX_META_OUTPUT_THUMBNAIL, thumbnailSize)
        if preset != "auto" { try photo.setString(MBX_META_OUTPUT_PRESET, preset) }
        photo.log(
            "packaging as HEIF with \(auxiliary.isEmpty ? "no auxiliary images" : auxiliary.joined(separator: ", "))",
            level: mbx_log_level(MBX_LOG_DEBUG))
    }
}

@_cdecl("mbx_plugin_get")
public func mbx_plugin_get(_ index: UInt32, _ host: UnsafePointer<mbx_host_api>?) -> UnsafePointer<mbx_plugin_descriptor>? {
    PluginExport.descriptor(index: index, host: host, processors: [HEIFPackaging.self])
}
