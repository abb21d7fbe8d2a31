/// What a pipeline stage asked the sink to write: a packaging stage (the HEIF
/// plugin) sets these through the `output.*` metadata keys, and they override
/// the command line's defaults for that photo.
public struct OutputRequest: Sendable, Equatable {
    /// A writable container's name ("jpeg", "png", "heic"; see ImageIO's `ImageContainers`).
    public var format: String?
    /// 1...100.
    public var quality: Int?
    /// The x265 preset for HEIF ("ultrafast" ... "slower").
    public var encoderPreset: String?
    /// The HEIF thumbnail's longest side; 0 for none.
    public var thumbnailSize: Int?

    public init() {}

    /// x265's presets, fastest first.
    public static let encoderPresets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower"]
}
