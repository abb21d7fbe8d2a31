import Foundation
import MatteboxCore

/// Where a session's movies go: the seam between the source and the movie
/// files, as `PhotoDelivery` is for photos. The composition layer
/// (MatteboxCaptureService) encodes through FFmpeg behind it; the session only
/// routes frames, keeps the Live Photo pre-roll and reports the timeline.
package protocol MovieOutput: Sendable {
    /// Opens a movie for the frames that follow; they arrive through the returned recording.
    /// `onFailure` is called once if writing fails on the way (a full disk).
    func startRecording(_ request: RecordingRequest, onFailure: @escaping @Sendable (String) -> Void) throws -> any MovieRecording
    /// A frame made compact for the Live Photo pre-roll (raw frames become JPEGs;
    /// compressed ones come back as they are), so 1.5 s of frames stays small.
    func compact(_ frame: CapturedFrame) -> CapturedFrame
    /// Writes a Live Photo's movie for the still at `still`; returns what it wrote.
    func writeLivePhotoMovie(_ clip: LivePhotoClip, still: URL) throws -> [URL]
}

/// A movie being written. `append` is called on the camera's thread and never blocks.
package protocol MovieRecording: AnyObject, Sendable {
    /// Where the finished movie will be.
    var path: String { get }
    func append(_ frame: CapturedFrame)
    /// Finishes the file (blocking: call it off the session's executor).
    func finish(_ ending: RecordingEnding) -> RecordedMovie
}

/// What a movie is recorded from.
package struct RecordingRequest: Sendable {
    package var camera: CameraDevice
    package var format: StreamFormat
    package var framesPerSecond: Double
    /// A front camera's movie is shown mirrored, as its preview was (container metadata only).
    package var mirrored: Bool
}

/// Why a recording ended (AVCaptureFileOutput's reasons, on Linux).
package enum RecordingEnding: String, Sendable, Codable {
    case stopped, durationReached, deviceRemoved, systemPressure, sessionStopped, failed
}

/// A finished recording: the file, how much it holds, and why it ended.
package struct RecordedMovie: Sendable, Equatable, Codable {
    /// The movie, or the `.recording` file that keeps what was written when it could not be finished.
    package var path: String
    package var complete: Bool
    package var frames: Int
    package var droppedFrames: Int
    package var duration: Double
    package var ending: RecordingEnding
    package var error: String?

    package init(path: String, complete: Bool, frames: Int, droppedFrames: Int, duration: Double, ending: RecordingEnding, error: String?) {
        self.path = path
        self.complete = complete
        self.frames = frames
        self.droppedFrames = droppedFrames
        self.duration = duration
        self.ending = ending
        self.error = error
    }
}

/// The frames of a Live Photo's movie (about 1.5 s either side of the press),
/// compacted as the pre-roll keeps them, and the still's frame time.
package struct LivePhotoClip: Sendable {
    package var frames: [CapturedFrame]
    package var stillTimestamp: UInt64
    package var contentIdentifier: String
    package var camera: CameraDevice
    package var framesPerSecond: Double
    package var mirrored: Bool
}
