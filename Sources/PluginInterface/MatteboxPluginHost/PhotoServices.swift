import MatteboxCore

/// What the host services do to a photo beyond its model: turn, mirror and
/// crop its pixels (every image at once, so depth and mattes stay registered
/// with the primary) and know the formats a photo may be written as. The plugin
/// host states the need and links no codec; whoever runs plugins passes the
/// image I/O it has (`ImageIOPhotoServices` in MatteboxPipeline).
package protocol PhotoServices: Sendable {
    /// Turns or mirrors every image of `photo`.
    func apply(_ transform: GeometryTransform, to photo: inout Photo) throws
    /// Crops every image of `photo` to the primary's rectangle (scaled for each image).
    func crop(_ photo: inout Photo, x: Int, y: Int, width: Int, height: Int) throws
    /// The canonical name of the writable format `name` answers to (any case, or an alias such as "jpg"); nil when none does.
    func writableFormat(named name: String) -> String?
    /// The writable formats in words ("jpeg, png or heic"), for messages.
    var writableFormatNames: String { get }
}
