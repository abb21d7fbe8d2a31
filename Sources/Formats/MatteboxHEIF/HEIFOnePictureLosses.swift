import MatteboxISOBMFF

/// What a HEIF input holds that a format with one picture (JPEG, PNG) cannot:
/// its other top-level images (a burst, a multi-image file), its thumbnail,
/// derived images, entity groups and metadata items beyond EXIF and XMP. The
/// writer names them in a note, and the default output format keeps a file
/// with other images as HEIC instead of dropping them.
package enum HEIFOnePictureLosses {
    /// Descriptions of what `bytes` (a HEIF file; anything else gives none) holds beyond one picture.
    package static func of(_ bytes: [UInt8]) -> [String] {
        guard let source = container(bytes) else { return [] }
        var lost: [String] = []
        let others = HEIFCarryOver.otherTopLevelImages(of: source)
        if !others.isEmpty {
            lost.append("\(others.count) other image\(others.count == 1 ? "" : "s") of the file (item\(others.count == 1 ? "" : "s") \(others.map(String.init).joined(separator: ", ")))")
        }
        let thumbnails = source.items(referencing: source.primaryID, by: "thmb")
        if !thumbnails.isEmpty {
            lost.append("the thumbnail (item\(thumbnails.count == 1 ? "" : "s") \(thumbnails.map(String.init).joined(separator: ", ")))")
        }
        for id in source.itemOrder where id != source.primaryID {
            guard let item = source.items[id], HEIFCarryOver.derivedTypes.contains(item.type), !item.isHidden || item.type == "tmap" else { continue }
            lost.append("the '\(item.type)' derived image (item \(id))")
        }
        for group in source.entityGroups {
            lost.append("the '\(group.type)' group of items \(group.entities.map(String.init).joined(separator: ", "))")
        }
        lost += HEIFCarryOver.unmodelledItems(of: source)
        return lost
    }

    /// True when `bytes` is a HEIF file with top-level images besides the primary.
    package static func hasOtherImages(_ bytes: [UInt8]) -> Bool {
        guard let source = container(bytes) else { return false }
        return !HEIFCarryOver.otherTopLevelImages(of: source).isEmpty
    }

    private static func container(_ bytes: [UInt8]) -> HEIFFile? {
        guard HEIFFile.looksLikeHEIF(Array(bytes.prefix(256))) else { return nil }
        return try? HEIFFile(bytes: bytes)
    }
}
