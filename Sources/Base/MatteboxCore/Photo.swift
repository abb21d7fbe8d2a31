import Foundation

/// The unit of work of every pipeline: a primary image, its auxiliary images by
/// role, and its metadata. Every stage that changes geometry changes all images
/// together (see `applying(_:)`), so depth and mattes stay registered with the
/// primary pixel for pixel.
package struct Photo: Sendable {
    /// Where the photo came from, for messages and output names.
    package var source: URL?
    package var primary: PixelImage
    package var auxiliary: [ImageRole: PixelImage] = [:]
    package var metadata = PhotoMetadata()
    /// Why an expected auxiliary image is absent ("no face found"), by role.
    package var absenceReasons: [ImageRole: String] = [:]

    package init(primary: PixelImage, metadata: PhotoMetadata = PhotoMetadata(), source: URL? = nil) {
        self.primary = primary
        self.metadata = metadata
        self.source = source
    }

    /// The image for a role, the primary included.
    package func image(_ role: ImageRole) -> PixelImage? {
        role == .primary ? primary : auxiliary[role]
    }

    /// Sets (or with nil removes) an auxiliary image. What the source said about
    /// the old image (its XMP, its depth range) no longer holds and is dropped.
    package mutating func setAuxiliary(_ image: PixelImage?, for role: ImageRole) {
        auxiliary[role] = image
        metadata.auxiliaryInfo[role] = nil
    }

    /// Every role present, primary first, then auxiliary roles in name order.
    package var roles: [ImageRole] { [.primary] + auxiliary.keys.sorted() }

    /// A copy whose pixels are independent of this photo's, so a stage that
    /// fails halfway can be rolled back.
    package func deepCopy() -> Photo {
        var twin = self
        twin.primary = primary.copy()
        twin.auxiliary = auxiliary.mapValues { $0.copy() }
        return twin
    }

    /// A short name for messages: the source file name, or "photo".
    package var displayName: String { source?.path ?? "photo" }
}
