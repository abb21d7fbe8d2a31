import Foundation
import MatteboxCore
import MatteboxPressure

/// Why a session stopped delivering frames without being asked to
/// (AVCaptureSession.InterruptionReason on Linux).
public enum InterruptionReason: String, Sendable, Codable {
    /// Another process owns the camera (EBUSY).
    case videoDeviceInUseByAnotherClient
    /// The camera was unplugged or is not there (ENODEV, POLLHUP, ENOENT).
    case videoDeviceNotAvailable
    /// The system is too hot to capture (pressure level shutdown).
    case videoDeviceNotAvailableDueToSystemPressure
}

/// Whether a shutter press now would be taken at once (AVCapturePhotoOutput.CaptureReadiness).
public enum CaptureReadiness: String, Sendable, Codable {
    case sessionNotRunning
    case ready
    /// Busy for a moment (a quality capture is switching formats).
    case notReadyMomentarily
    /// As many photos as allowed are being processed.
    case notReadyWaitingForCapture
}

/// The session's timeline, as an async sequence: session changes and each
/// photo's steps (AVCapturePhotoCaptureDelegate's callbacks).
public enum CaptureEvent: Sendable, Equatable {
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
    case photo(id: Int64, PhotoStep)
}

/// One step of one photo.
public enum PhotoStep: Sendable, Equatable {
    case willBeginCapture
    /// The shutter: the frame chosen, by its driver sequence number.
    case willCapture(frameSequence: UInt32)
    case didFinishProcessing
    /// Written to `output`, or failed with `error`.
    case didFinish(output: String?, error: String?)
}
