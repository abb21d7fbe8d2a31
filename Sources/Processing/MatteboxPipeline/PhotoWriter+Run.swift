import Foundation
import MatteboxCore
import MatteboxHEIF

extension PhotoWriter {
    /// The one way from a photo to its written file, for batches (`process`,
    /// `render`), a capture's final and the app's portrait copies: the
    /// pipeline's stages (none without a runner), with the primary's encode
    /// begun once no later stage changes it (`encodeAhead`), then `afterStages`
    /// (a caller's accounting or last check), then the write. A stage's failure
    /// is thrown as the `StageFailure` with every stage's report.
    package func run(
        _ photo: inout Photo, through runner: PipelineRunner?, stem: String, movie: URL? = nil, encodeAhead: Bool = true,
        skipping skippedRoles: Set<ImageRole> = [], reason: String = "", afterStages: (Photo) throws -> Void = { _ in }
    ) throws -> (stages: [StageReport], written: Written) {
        var ahead: PrimaryEncodeAhead?
        // Nothing of a photo's encode runs on into the next photo's.
        defer { ahead?.wait() }
        let stages = try runner?.run(
            &photo, skippingStagesProviding: skippedRoles, reason: reason,
            primaryIsFinal: encodeAhead ? { ahead = self.encodeAhead($0) } : nil) ?? []
        try afterStages(photo)
        return (stages, try write(photo, stem: stem, movie: movie, encodedAhead: ahead))
    }
}
