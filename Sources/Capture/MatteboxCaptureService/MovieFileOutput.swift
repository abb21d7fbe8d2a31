import Foundation
import MatteboxCapture
import MatteboxMovie
import MatteboxPairedMedia
import MatteboxRuntime

/// The session's movies as files, through MatteboxMovie (FFmpeg): recordings
/// as fragmented MP4/MOV in the output folder, Live Photo movies beside their
/// stills in the chosen Live Photo format.
package struct MovieFileOutput: MovieOutput {
    /// How a Live Photo is stored (`--live-format`).
    package enum LivePhotoFormat: String, Sendable, CaseIterable {
        /// A HEIC/JPEG and a MOV with the same content identifier, as iPhones write (Apple Photos pairs them).
        case apple
        /// One JPEG or HEIC with the MP4 after the image and the Camera XMP that points at it (Google Photos).
        case motionPhoto = "motion-photo"
        /// Both: the Motion Photo and, beside it, the MOV.
        case both
    }

    package var directory: URL
    package var settings: MovieSettings
    package var livePhotoFormat: LivePhotoFormat

    package init(directory: URL, settings: MovieSettings = MovieSettings(), livePhotoFormat: LivePhotoFormat = .apple) {
        self.directory = directory
        self.settings = settings
        self.livePhotoFormat = livePhotoFormat
    }

    package func startRecording(_ request: RecordingRequest, onFailure: @escaping @Sendable (String) -> Void) throws -> any MovieRecording {
        let format = try Self.movieFormat(
            camera: request.camera, format: request.format, framesPerSecond: request.framesPerSecond, mirrored: request.mirrored)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss-SSS"
        var url = directory.appendingPathComponent("movie-\(formatter.string(from: Date())).\(settings.container.fileExtension)")
        var suffix = 1
        while FileManager.default.fileExists(atPath: url.path) {
            suffix += 1
            url = url.deletingPathExtension().appendingPathExtension("\(suffix)").appendingPathExtension(settings.container.fileExtension)
        }
        return FileRecording(try MovieRecorder(path: url.path, format: format, settings: settings, onFailure: onFailure))
    }

    package func compact(_ frame: CapturedFrame) -> CapturedFrame {
        guard frame.format.fourcc == .yuyv,
            let jpeg = try? JPEGFrame.fromYUYV(frame.bytes, width: frame.format.width, height: frame.format.height)
        else { return frame }
        var compacted = frame
        compacted.bytes = jpeg
        compacted.format.fourcc = .mjpeg
        return compacted
    }

    package func writeLivePhotoMovie(_ clip: LivePhotoClip, still: URL) throws -> [URL] {
        guard let first = clip.frames.first else { throw MatteboxError("no frames were kept for the Live Photo movie") }
        let format = try Self.movieFormat(
            camera: clip.camera, format: first.format, framesPerSecond: clip.framesPerSecond, mirrored: clip.mirrored)
        let frames = clip.frames.map(Self.movieFrame)
        var written: [URL] = []
        if livePhotoFormat != .motionPhoto {
            let movie = still.deletingPathExtension().appendingPathExtension("mov")
            _ = try LivePhotoMovie.write(
                frames: frames, stillTimestamp: clip.stillTimestamp, contentIdentifier: clip.contentIdentifier, format: format,
                settings: settings, to: movie.path)
            written.append(movie)
        }
        if livePhotoFormat != .apple {
            let heic = still.pathExtension.lowercased() == "heic"
            written.append(try (heic ? HEICMotionPhoto.make : MotionPhoto.make)(still, frames, clip.stillTimestamp, format, settings))
        }
        return written
    }

    static func movieFormat(camera: CameraDevice, format: StreamFormat, framesPerSecond: Double, mirrored: Bool) throws -> MovieFormat {
        let input: MovieInput
        switch format.fourcc {
        case .mjpeg, .jpeg: input = .mjpeg
        case .yuyv: input = .yuyv
        default: throw MatteboxError("movies are made from MJPEG or YUYV frames; \(camera.path) streams \(format.fourcc)")
        }
        // V4L2's sensor rotation is the counter-clockwise turn; a player's display matrix turns clockwise.
        return MovieFormat(
            width: format.width, height: format.height, input: input, framesPerSecond: framesPerSecond,
            rotationDegrees: (360 - camera.sensorRotation % 360) % 360, mirrored: mirrored)
    }

    static func movieFrame(_ frame: CapturedFrame) -> MovieFrame {
        MovieFrame(bytes: frame.bytes, timestamp: frame.timestamp, input: frame.format.fourcc == .yuyv ? .yuyv : .mjpeg)
    }
}

/// A recording through `MovieRecorder`, as the session sees it.
final class FileRecording: MovieRecording {
    private let recorder: MovieRecorder

    init(_ recorder: MovieRecorder) { self.recorder = recorder }

    var path: String { recorder.path }

    func append(_ frame: CapturedFrame) { recorder.append(MovieFileOutput.movieFrame(frame)) }

    func finish(_ ending: RecordingEnding) -> RecordedMovie {
        let outcome = recorder.finish()
        return RecordedMovie(
            path: outcome.path, complete: outcome.complete, frames: outcome.frames, droppedFrames: outcome.droppedFrames,
            duration: outcome.duration, ending: outcome.error == nil ? ending : .failed, error: outcome.error)
    }
}
