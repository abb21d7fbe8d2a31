import Foundation

/// Everything a photo carries besides pixels: EXIF (the block itself, kept byte
/// for byte, plus the orientation the pipeline has settled on), XMP, the ICC
/// profile and the capture context.
package struct PhotoMetadata: Sendable {
    /// The EXIF block as read; encoders update its orientation and dimensions.
    package var exif: ExifBlock?
    /// The EXIF orientation the photo's pixels should be displayed with.
    package var orientation: ExifOrientation = .up
    /// When true, encoders drop GPS data from the EXIF they write.
    package var stripLocation = false
    package var xmp: Data?
    package var iccProfile: Data?
    package var capture = CaptureContext()
    /// What the source container said about each auxiliary image, by role.
    package var auxiliaryInfo: [ImageRole: AuxiliaryImageInfo] = [:]
    /// The coded form each image was decoded from, by role (`primary` too),
    /// for writers that pass unchanged images through.
    package var codedOrigins: [ImageRole: CodedOrigin] = [:]
    /// What the HDR gain map's values mean (its stated headroom, or ISO 21496-1 metadata).
    package var gainMap = GainMapMeaning()
    /// The container the photo was read from ("jpeg", "png", "heic", ...), as
    /// plugins read `input.format`; nil for a capture.
    package var inputFormat: String?
    /// How stages asked for this photo to be written.
    package var output = OutputRequest()
    /// The movie a Google Motion Photo carries after its JPEG (its XMP says
    /// where): a JPEG output appends it again, so the Motion Photo survives a
    /// re-encode; other outputs say that it was not kept.
    package var motionPhotoMovie: Data?
    /// Free-form notes stages leave for the user ("note.<name>" keys), e.g.
    /// why no portrait matte was made.
    package var notes: [String: String] = [:]
    /// What a stage left for later stages of this photo ("shared.<name>" keys,
    /// e.g. the face the vision plugins found): never written or reported.
    package var shared: [String: String] = [:]

    package init() {}

    package init(exif: ExifBlock?, xmp: Data?, iccProfile: Data?) {
        self.exif = exif
        self.xmp = xmp
        self.iccProfile = iccProfile
        self.orientation = exif?.orientation.flatMap(ExifOrientation.init) ?? .up
        if let lens = exif?.lensModel?.lowercased() {
            // iPhones name the lens ("iPhone 13 Pro front camera 2.71mm f/2.2").
            if lens.contains("front") { capture.position = .front }
            else if lens.contains("back") { capture.position = .back }
        }
        capture.device = [exif?.make, exif?.model].compactMap { $0 }.joined(separator: " ").nilIfEmpty
    }

    package var hasLocation: Bool { !stripLocation && (exif?.hasLocation ?? false) }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}

extension PhotoMetadata {
    /// The EXIF block an encoder should write for pixels of the given size: the
    /// original with the current orientation and dimensions, without the stale
    /// embedded thumbnail, and without GPS data when location is stripped.
    /// Nil when there is nothing to say (no EXIF and upright pixels).
    package func exifForWriting(width: Int, height: Int) -> ExifBlock? {
        guard exif != nil || orientation != .up else { return nil }
        var block = exif ?? ExifBlock.empty()
        block.setOrientation(orientation.rawValue)
        block.setPixelDimensions(width: width, height: height)
        block.removeThumbnailLink()
        if stripLocation { block.removeLocation() }
        return block
    }
}
