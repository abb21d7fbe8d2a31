import Foundation
import MatteboxCore

/// A photo the session took, as it leaves the source: the Photo (primary from
/// the chosen frame, orientation from the sensor rotation, the capture
/// context) and what the session knows of how it was taken. The session hands
/// it to its `PhotoDelivery`; nothing here has been processed or written.
package struct CapturedPhoto: Sendable {
    package var photo: Photo
    /// The photo settings' unique id.
    package var id: Int64
    package var frameSequence: UInt32
    /// CLOCK_MONOTONIC nanoseconds of the frame and of the shutter press.
    package var frameTimestamp: UInt64
    package var pressTime: UInt64
    /// The quality prioritisation the photo was taken with (capped under pressure).
    package var quality: QualityPrioritization
    package var size: FrameSize
    /// Auxiliary images not to make: not asked for in the photo settings, or
    /// turned off under system pressure; `skipReason` says which.
    package var skippedRoles: Set<ImageRole>
    package var skipReason: String
    /// The photo settings ask for this front-camera photo to look as the
    /// preview did (mirrored). The session never flips pixels itself: the
    /// delivery does it, through the Mirroring plugin, in one place.
    package var mirroringRequested: Bool
    /// The camera's path, for messages.
    package var cameraPath: String
    /// Why this photo is processed with cheaper settings (presses came faster
    /// than processing); nil: full quality. The session decides when, the
    /// delivery what is cheaper, and the photo's notes say so.
    package var economy: String?

    package init(
        photo: Photo, id: Int64, frameSequence: UInt32, frameTimestamp: UInt64, pressTime: UInt64,
        quality: QualityPrioritization, size: FrameSize, skippedRoles: Set<ImageRole> = [], skipReason: String = "",
        mirroringRequested: Bool = false, cameraPath: String
    ) {
        self.photo = photo
        self.id = id
        self.frameSequence = frameSequence
        self.frameTimestamp = frameTimestamp
        self.pressTime = pressTime
        self.quality = quality
        self.size = size
        self.skippedRoles = skippedRoles
        self.skipReason = skipReason
        self.mirroringRequested = mirroringRequested
        self.cameraPath = cameraPath
    }
}

/// Where a session's photos go once taken: the seam between the source and
/// the rest of the flow (stages and sink). The composition layer
/// (MatteboxCaptureService) runs the pipeline and the writer behind it; the
/// session only queues photos and reports the timeline. A photo is delivered
/// in two steps, as AVCam's deferred processing: its proxy at once, the final
/// file later in the proxy's place; proxies left by a run that was killed are
/// found and finished by the next.
package protocol PhotoDelivery: Sendable {
    /// Writes the photo as taken (primary, EXIF, orientation; mirrored when
    /// asked) at once, recorded as pending so no kill can lose it.
    func writeProxy(_ photo: CapturedPhoto) throws -> ProxyPhoto
    /// Runs the stages and writes the final file in the proxy's place. Calls
    /// `processed` once the stages are done and before the file is written.
    func finish(_ proxy: ProxyPhoto, processed: @Sendable () -> Void) throws -> DeliveredPhoto
    /// Proxies an earlier run wrote and did not finish, oldest first.
    func pendingProxies() -> [URL]
    /// Finishes one of those, from its file.
    func finishPending(_ proxy: URL, processed: @Sendable () -> Void) throws -> DeliveredPhoto
}

/// A photo whose proxy is on disk: the file, and the photo as the final's
/// stages start from it (mirrored when asked, its primary's coded bytes those
/// of the proxy, so an unchanged primary is not encoded twice).
package struct ProxyPhoto: Sendable {
    package var output: URL
    package var captured: CapturedPhoto
    /// The stages run before the proxy was written (mirroring).
    package var stages: [StageReport]

    package init(output: URL, captured: CapturedPhoto, stages: [StageReport] = []) {
        self.output = output
        self.captured = captured
        self.stages = stages
    }
}

/// A press the session took: its frame secured and its proxy written; `final`
/// ends when the processed photo has replaced the proxy.
package struct TakenPhoto: Sendable {
    package var id: Int64
    package var proxy: URL
    package var frameSequence: UInt32
    package var frameTimestamp: UInt64
    package var pressTime: UInt64
    package var quality: QualityPrioritization
    package var size: FrameSize
    /// Press to its frame secured (out of the zero-shutter-lag ring), and to the proxy on disk, in seconds.
    package var pressToFrameSeconds: Double
    package var pressToProxySeconds: Double
    package var final: Task<CaptureResult, any Error>

    /// Waits for the final photo.
    package func result() async throws -> CaptureResult { try await final.value }
}

/// What a delivery made of a photo: its files and what the stages said.
package struct DeliveredPhoto: Sendable {
    package var output: URL
    package var auxiliaryOutputs: [URL]
    package var stages: [StageReport]
    package var notes: [String: String]
    /// Why an expected auxiliary image is absent, by role.
    package var absenceReasons: [String: String]

    package init(
        output: URL, auxiliaryOutputs: [URL], stages: [StageReport], notes: [String: String],
        absenceReasons: [String: String]
    ) {
        self.output = output
        self.auxiliaryOutputs = auxiliaryOutputs
        self.stages = stages
        self.notes = notes
        self.absenceReasons = absenceReasons
    }
}

/// A photo the session finished: the file, what each stage did, and the frame it came from.
package struct CaptureResult: Sendable {
    package var id: Int64
    package var output: URL
    package var auxiliaryOutputs: [URL]
    package var stages: [StageReport]
    package var notes: [String: String]
    package var absenceReasons: [String: String]
    package var frameSequence: UInt32
    package var frameTimestamp: UInt64
    package var pressTime: UInt64
    package var quality: QualityPrioritization
    package var size: FrameSize
    /// Press to the final file written, in seconds.
    package var shutterToFileSeconds: Double
    /// The proxy the final replaced (the same path, unless a stage changed the format).
    package var proxy: URL?
    /// Press to proxy on disk, in seconds.
    package var pressToProxySeconds: Double?
    /// Press to the frame secured, in seconds.
    package var pressToFrameSeconds: Double?
    /// A Live Photo's movie files (the QuickTime movie, or the Motion Photo that replaced the still).
    package var livePhotoMovie: [URL] = []
    /// Why a Live Photo's movie could not be written (the still was).
    package var livePhotoError: String?

    init(_ captured: CapturedPhoto, _ delivered: DeliveredPhoto, proxy: URL? = nil, pressToProxySeconds: Double? = nil) {
        self.proxy = proxy
        self.pressToProxySeconds = pressToProxySeconds
        id = captured.id
        output = delivered.output
        auxiliaryOutputs = delivered.auxiliaryOutputs
        stages = delivered.stages
        notes = delivered.notes
        absenceReasons = delivered.absenceReasons
        frameSequence = captured.frameSequence
        frameTimestamp = captured.frameTimestamp
        pressTime = captured.pressTime
        quality = captured.quality
        size = captured.size
        shutterToFileSeconds = Double(MonotonicClock.now() &- captured.pressTime) / 1e9
    }
}
