import Foundation
import MatteboxISOBMFF

/// The movie of a HEIC Motion Photo: a top-level `mpvd` box whose payload is
/// the MP4, after the HEIF's own boxes. Android's "Motion Photo format 1.0"
/// allows a HEIC primary image; Samsung's cameras store the movie this way,
/// and ExifTool reads it as QuickTime:MotionPhotoVideo. The XMP's Container
/// directory locates it from the end of the file, the primary item's
/// `Item:Padding` (8) covering the box header.
///
/// Samsung follows the MP4 with a `sefd` trailer inside the same box; it
/// records the movie's absolute offset in the file, which a rewritten file no
/// longer has, so it is not carried (and the reader says so).
package enum MotionPhotoVideoBox {
    package static let type = "mpvd"
    /// Bytes between the HEIF's end and the movie's start: the box header.
    package static let headerLength = 8
    /// Top-level boxes a HEIF reader expects, besides `mpvd`.
    static let heifBoxes: Set<String> = ["ftyp", "meta", "mdat", "free", "skip"]

    /// The movie in `container`, and what of the box was not taken.
    package static func movie(in container: HEIFFile) -> (movie: Data, leftOut: String?)? {
        guard let box = container.topLevelBoxes.first(type), box.payload.count >= 16,
            BoxType.string(container.bytes[(box.payload.lowerBound + 4)..<(box.payload.lowerBound + 8)]) == "ftyp"
        else { return nil }
        var end = box.payload.upperBound
        var leftOut: String?
        if let parts = try? Box.children(of: container.bytes, in: box.payload, parent: type),
            let trailer = trailerIndex(parts.map(\.type))
        {
            end = parts[trailer].range.lowerBound
            leftOut = "the movie's \(parts[trailer...].map { "'\($0.type)'" }.joined(separator: ", ")) trailer "
                + "(\(box.payload.upperBound - end) bytes, a camera maker's index of offsets in the original file)"
        }
        return (Data(container.bytes[box.payload.lowerBound..<end]), leftOut)
    }

    /// Top-level boxes the reader does not model, by type and size, so a rewrite can say it did not keep them.
    package static func unmodelledBoxes(in container: HEIFFile) -> [String] {
        container.topLevelBoxes.filter { !heifBoxes.contains($0.type) && $0.type != type }
            .map { "'\($0.type)' (\($0.range.count) bytes)" }
    }

    /// `heif` with the movie appended in an `mpvd` box.
    package static func appending(_ movie: Data, to heif: Data) -> Data {
        var box = ByteWriter()
        box.u32(UInt32(clamping: movie.count + headerLength))
        box.fourCC(type)
        return heif + Data(box.bytes) + movie
    }

    /// Among the `mpvd` payload's boxes (by type, in order), the first of a
    /// trailer after the movie's own boxes (Samsung's `sefd`); nil when there is none.
    package static func trailerIndex(_ types: [String]) -> Int? {
        types.indices.dropFirst().first { !movieBoxes.contains(types[$0]) }
    }

    /// Boxes an MP4 or QuickTime movie is made of at its top level.
    static let movieBoxes: Set<String> = ["ftyp", "moov", "mdat", "free", "skip", "wide", "moof", "mfra", "sidx", "styp", "uuid", "meta", "pdin"]
}
