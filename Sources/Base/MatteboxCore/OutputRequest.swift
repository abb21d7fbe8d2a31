/// What a pipeline stage asked the sink to write: a packaging stage (the HEIF
/// plugin) sets these through the `output.*` metadata keys, and they override
/// the command line's defaults for that photo.
package struct OutputRequest: Sendable, Equatable {
    /// A writable container's name ("jpeg", "png", "heic"; see ImageIO's `ImageContainers`).
    package var format: String?
    /// 1...100.
    package var quality: Int?
    /// The x265 preset for HEIF ("ultrafast" ... "slower").
    package var encoderPreset: String?
    /// The HEIF thumbnail's longest side; 0 for none.
    package var thumbnailSize: Int?

    package init() {}

    /// x265's presets, fastest first.
    package static let encoderPresets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower"]
}
