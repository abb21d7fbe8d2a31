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
/// session only keeps count of photos in flight and reports the timeline.
package protocol PhotoDelivery: Sendable {
    /// Processes and stores one photo, off the session's executor. Calls
    /// `processed` once the stages are done and before the file is written.
    func deliver(_ photo: CapturedPhoto, processed: @Sendable () -> Void) throws -> DeliveredPhoto
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
    /// Press to file written, in seconds.
    package var shutterToFileSeconds: Double
    /// A Live Photo's movie files (the QuickTime movie, or the Motion Photo that replaced the still).
    package var livePhotoMovie: [URL] = []
    /// Why a Live Photo's movie could not be written (the still was).
    package var livePhotoError: String?

    init(_ captured: CapturedPhoto, _ delivered: DeliveredPhoto) {
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
