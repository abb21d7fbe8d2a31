import Foundation

/// How a movie is encoded and packed (AVCaptureMovieFileOutput's output
/// settings): the codec, a quality level, the container, and the encoder's
/// speed preset. The defaults keep up with 1280x960 at 30 fps on two cores.
package struct MovieSettings: Sendable, Equatable {
    package enum Codec: String, Sendable, CaseIterable, Codable {
        case h264, hevc

        /// The FFmpeg encoder that makes it.
        var encoder: String { self == .h264 ? "libx264" : "libx265" }
    }

    package enum Quality: String, Sendable, CaseIterable, Codable {
        case low, medium, high

        /// x264's and x265's constant rate factor for the level (x265's scale sits about 5 higher for the same look).
        func constantRateFactor(for codec: Codec) -> Int {
            let h264 = self == .low ? 28 : self == .medium ? 23 : 18
            return codec == .hevc ? h264 + 5 : h264
        }
    }

    package enum Container: String, Sendable, CaseIterable, Codable {
        case mp4, mov

        package var fileExtension: String { rawValue }
    }

    /// The speed presets x264 and x265 share, fastest first.
    package static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"]

    package var codec: Codec
    package var quality: Quality
    package var container: Container
    /// x264/x265 speed preset; `veryfast` keeps 1280x960 at 30 fps real time on two cores.
    package var preset: String

    package init(codec: Codec = .h264, quality: Quality = .medium, container: Container = .mp4, preset: String = "veryfast") {
        self.codec = codec
        self.quality = quality
        self.container = container
        self.preset = preset
    }
}

/// The pixel layout of the frames a movie is made from: what the camera sends.
package enum MovieInput: Sendable, Equatable {
    /// Each frame a whole JPEG (MJPEG cameras).
    case mjpeg
    /// Packed YUV 4:2:2 (YUYV).
    case yuyv
    /// Packed 8-bit RGB.
    case rgb24
}

/// One frame of a movie: the camera's bytes and when it was captured
/// (nanoseconds on the camera's clock, CLOCK_MONOTONIC for V4L2).
package struct MovieFrame: Sendable {
    package var bytes: [UInt8]
    package var timestamp: UInt64
    package var input: MovieInput

    package init(bytes: [UInt8], timestamp: UInt64, input: MovieInput) {
        self.bytes = bytes
        self.timestamp = timestamp
        self.input = input
    }
}

/// What a movie is of: its size, nominal rate, and how a player shows it
/// (rotation and mirroring are container metadata, the pixels stay as captured).
package struct MovieFormat: Sendable, Equatable {
    package var width: Int
    package var height: Int
    package var input: MovieInput
    package var framesPerSecond: Double
    /// Clockwise degrees a player turns the picture to show it upright.
    package var rotationDegrees: Int
    /// A player flips the picture left-right (front camera, mirrored like the preview).
    package var mirrored: Bool

    package init(width: Int, height: Int, input: MovieInput, framesPerSecond: Double, rotationDegrees: Int = 0, mirrored: Bool = false) {
        self.width = width
        self.height = height
        self.input = input
        self.framesPerSecond = framesPerSecond
        self.rotationDegrees = rotationDegrees
        self.mirrored = mirrored
    }
}
