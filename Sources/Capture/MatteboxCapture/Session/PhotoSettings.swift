import Foundation
import MatteboxCore
import Synchronization

/// What one photo asks for (AVCapturePhotoSettings): which auxiliary images
/// to deliver, the quality prioritisation, whether a front camera's photo is
/// mirrored like its preview, and the moment the shutter was pressed, taken
/// on CLOCK_MONOTONIC when the settings are made (before any hop to the
/// session), so zero shutter lag can pick the frame of that moment.
package struct PhotoSettings: Sendable {
    private static let counter = Mutex(Int64(0))

    package let uniqueID: Int64
    package var pressTime: UInt64
    package var quality: QualityPrioritization
    package var depthDelivery: Bool
    package var portraitMatteDelivery: Bool
    package var semanticMatteDelivery: Set<ImageRole>
    /// Front camera photos come out mirrored, as the preview shows them.
    package var mirrorsFrontCamera: Bool
    /// The container to write ("heic", "jpeg", ...); nil: the writer's choice.
    package var outputFormat: String?
    /// A Live Photo: the still carries this content identifier and a movie of
    /// about 1.5 s either side of the press is written with it (nil: a plain photo).
    package var livePhotoContentIdentifier: String?

    package init(
        quality: QualityPrioritization = .balanced, depthDelivery: Bool = true, portraitMatteDelivery: Bool = true,
        semanticMatteDelivery: Set<ImageRole> = Set(ImageRole.semanticMattes),
        mirrorsFrontCamera: Bool = false, pressTime: UInt64 = MonotonicClock.now()
    ) {
        uniqueID = Self.counter.withLock { value in
            value += 1
            return value
        }
        self.pressTime = pressTime
        self.quality = quality
        self.depthDelivery = depthDelivery
        self.portraitMatteDelivery = portraitMatteDelivery
        self.semanticMatteDelivery = semanticMatteDelivery
        self.mirrorsFrontCamera = mirrorsFrontCamera
    }

    /// The auxiliary images not asked for; stages that only make those are skipped.
    var undeliveredRoles: Set<ImageRole> {
        var roles = Set(ImageRole.semanticMattes).subtracting(semanticMatteDelivery)
        if !depthDelivery { roles.formUnion([.depth, .disparity]) }
        if !portraitMatteDelivery { roles.insert(.portraitMatte) }
        return roles
    }
}
