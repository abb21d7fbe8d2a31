import MatteboxCore
import MatteboxImageIO
import MatteboxImageOps
import MatteboxPluginHost

/// The plugin host's pixel and format services done by Mattebox's image I/O:
/// libvips turns, mirrors and crops (carrying each image's coded origin with a
/// turn, so an unchanged image is still copied as coded), and the writable
/// formats are the container registry's.
package struct ImageIOPhotoServices: PhotoServices {
    package init() {}

    package func apply(_ transform: GeometryTransform, to photo: inout Photo) throws { try photo.apply(transform) }

    package func crop(_ photo: inout Photo, x: Int, y: Int, width: Int, height: Int) throws {
        try photo.crop(x: x, y: y, width: width, height: height)
    }

    /// The canonical name; `OutputFormat.runsHEIFFormat` stays itself (the run picks HEIC or AVIF).
    package func writableFormat(named name: String) -> String? {
        name.lowercased() == OutputFormat.runsHEIFFormat ? OutputFormat.runsHEIFFormat : OutputFormat(rawValue: name)?.rawValue
    }

    package var writableFormatNames: String { ImageContainers.writableNames }
}
