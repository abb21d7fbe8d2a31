import Foundation
import MatteboxCore
import MatteboxPressure

/// Why a session stopped delivering frames without being asked to
/// (AVCaptureSession.InterruptionReason on Linux).
package enum InterruptionReason: String, Sendable, Codable {
    /// Another process owns the camera (EBUSY).
    case videoDeviceInUseByAnotherClient
    /// The camera was unplugged or is not there (ENODEV, POLLHUP, ENOENT).
    case videoDeviceNotAvailable
    /// The system is too hot to capture (pressure level shutdown).
    case videoDeviceNotAvailableDueToSystemPressure
}

/// Whether a shutter press now would be taken at once (AVCapturePhotoOutput.CaptureReadiness).
package enum CaptureReadiness: String, Sendable, Codable {
    case sessionNotRunning
    case ready
    /// Busy for a moment (a quality capture is switching formats).
    case notReadyMomentarily
    /// The photos being processed hold the queue's whole memory budget.
    case notReadyWaitingForCapture
}

/// The session's timeline, as an async sequence: session changes and each
/// photo's steps (AVCapturePhotoCaptureDelegate's callbacks).
package enum CaptureEvent: Sendable, Equatable {
    case started(camera: String)
    case stopped
    case interrupted(InterruptionReason)
    case interruptionEnded
    /// A runtime error (EIO and the like); the session restarts the stream.
    case runtimeError(String)
    case cameraChanged(camera: String)
    case systemPressure(PressureLevel)
    /// The frame rate the session delivers, after throttling.
    case frameRate(Double)
    case readiness(CaptureReadiness)
    /// The photo queue changed: photos in flight, their memory, the budget.
    case queue(CaptureQueueStatus)
    case photo(id: Int64, PhotoStep)
    /// A movie recording began, writing to `path` (AVCaptureFileOutputRecordingDelegate).
    case willBeginRecording(path: String)
    /// A movie recording ended: the file, how much it holds and why it ended.
    case didFinishRecording(RecordedMovie)
    /// Live Photos whose movies are still being gathered or written (AVCam's in-progress count).
    case livePhotoCapturesInProgress(Int)
}

/// One step of one photo.
package enum PhotoStep: Sendable, Equatable {
    case willBeginCapture
    /// The shutter: the frame chosen, by its driver sequence number.
    case willCapture(frameSequence: UInt32)
    /// The proxy (the photo as taken) is on disk at `output`; the rest follows.
    case proxyWritten(output: String)
    /// Processing begins; `economy` says why with cheaper settings, when so.
    case willBeginProcessing(economy: String?)
    case didFinishProcessing
    /// The final file replaced the proxy.
    case finalWritten(output: String)
    /// Done: written to `output`, or failed with `error` (the proxy, when one was written, stays).
    case didFinish(output: String?, error: String?)
    /// A Live Photo's movie has all its frames (about 1.5 s after the press).
    case didFinishRecordingLivePhotoMovie
    /// A Live Photo's movie was written (its files), or failed with `error`.
    case didFinishProcessingLivePhotoMovie(outputs: [String], error: String?)
}
