import Foundation

/// How a movie is encoded and packed (AVCaptureMovieFileOutput's output
/// settings): the codec, a quality level, the container, and the encoder's
/// speed preset. The defaults keep up with 1280x960 at 30 fps on two cores.
public struct MovieSettings: Sendable, Equatable {
    public enum Codec: String, Sendable, CaseIterable, Codable {
        case h264, hevc

        /// The FFmpeg encoder that makes it.
        var encoder: String { self == .h264 ? "libx264" : "libx265" }
    }

    public enum Quality: String, Sendable, CaseIterable, Codable {
        case low, medium, high

        /// x264's and x265's constant rate factor for the level (x265's scale sits about 5 higher for the same look).
        func constantRateFactor(for codec: Codec) -> Int {
            let h264 = self == .low ? 28 : self == .medium ? 23 : 18
            return codec == .hevc ? h264 + 5 : h264
        }
    }

    public enum Container: String, Sendable, CaseIterable, Codable {
        case mp4, mov

        public var fileExtension: String { rawValue }
    }

    /// The speed presets x264 and x265 share, fastest first.
    public static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"]

    public var codec: Codec
    public var quality: Quality
    public var container: Container
    /// x264/x265 speed preset; `veryfast` keeps 1280x960 at 30 fps real time on two cores.
    public var preset: String

    public init(codec: Codec = .h264, quality: Quality = .medium, container: Container = .mp4, preset: String = "veryfast") {
        self.codec = codec
        self.quality = quality
        self.container = container
        self.preset = preset
    }
}

/// The pixel layout of the frames a movie is made from: what the camera sends.
public enum MovieInput: Sendable, Equatable {
    /// Each frame a whole JPEG (MJPEG cameras).
    case mjpeg
    /// Packed YUV 4:2:2 (YUYV).
    case yuyv
    /// Packed 8-bit RGB.
    case rgb24
}

/// One frame of a movie: the camera's bytes and when it was captured
/// (nanoseconds on the camera's clock, CLOCK_MONOTONIC for V4L2).
public struct MovieFrame: Sendable {
    public var bytes: [UInt8]
    public var timestamp: UInt64
    public var input: MovieInput

    public init(bytes: [UInt8], timestamp: UInt64, input: MovieInput) {
        self.bytes = bytes
        self.timestamp = timestamp
        self.input = input
    }
}

/// What a movie is of: its size, nominal rate, and how a player shows it
/// (rotation and mirroring are container metadata, the pixels stay as captured).
public struct MovieFormat: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var input: MovieInput
    public var framesPerSecond: Double
    /// Clockwise degrees a player turns the picture to show it upright.
    public var rotationDegrees: Int
    /// A player flips the picture left-right (front camera, mirrored like the preview).
    public var mirrored: Bool

    public init(width: Int, height: Int, input: MovieInput, framesPerSecond: Double, rotationDegrees: Int = 0, mirrored: Bool = false) {
        self.width = width
        self.height = height
        self.input = input
        self.framesPerSecond = framesPerSecond
        self.rotationDegrees = rotationDegrees
        self.mirrored = mirrored
    }
}
