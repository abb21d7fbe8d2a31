import MatteboxCore

/// The metadata keys plugins read and write through the host (`MBX_META_*`),
/// mapped onto the Photo model. One table, so the C ABI and the Swift side can
/// never disagree about what a key means.
enum MetadataAccess {
    enum Failure: Error {
        case notFound
        case invalid(String)
    }

    static func integer(_ key: String, of photo: Photo) throws(Failure) -> Int64 {
        let metadata = photo.metadata
        switch key {
        case "exif.orientation": return Int64(metadata.orientation.rawValue)
        case "exif.hasLocation": return metadata.hasLocation ? 1 : 0
        case "capture.mirrored": return metadata.capture.isMirrored ? 1 : 0
        case "capture.sensorRotation": return Int64(metadata.capture.sensorRotation)
        case "output.quality": return try Int64(present(metadata.output.quality))
        case "output.thumbnailSize": return try Int64(present(metadata.output.thumbnailSize))
        default: throw .notFound
        }
    }

    static func setInteger(_ key: String, _ value: Int64, on photo: inout Photo) throws(Failure) {
        switch key {
        case "exif.orientation":
            guard let orientation = ExifOrientation(Int(value)) else {
                throw .invalid("exif.orientation must be 1...8, not \(value)")
            }
            photo.metadata.orientation = orientation
        case "capture.mirrored":
            photo.metadata.capture.isMirrored = value != 0
        case "capture.sensorRotation":
            guard [0, 90, 180, 270].contains(value) else {
                throw .invalid("capture.sensorRotation must be 0, 90, 180 or 270, not \(value)")
            }
            photo.metadata.capture.sensorRotation = Int(value)
        case "output.quality":
            guard (1...100).contains(value) else { throw .invalid("output.quality must be 1...100, not \(value)") }
            photo.metadata.output.quality = Int(value)
        case "output.thumbnailSize":
            guard (0...4096).contains(value) else {
                throw .invalid("output.thumbnailSize must be 0...4096, not \(value)")
            }
            photo.metadata.output.thumbnailSize = Int(value)
        case "exif.hasLocation":
            throw .invalid("exif.hasLocation is read-only; remove \"exif.location\" to strip GPS data")
        default: throw .notFound
        }
    }

    static func string(_ key: String, of photo: Photo) throws(Failure) -> String {
        let metadata = photo.metadata
        if let entry = freeForm(key) { return try present(metadata[keyPath: entry.values][entry.name]) }
        let value: String?
        switch key {
        case "exif.make": value = metadata.exif?.make
        case "exif.model": value = metadata.exif?.model
        case "exif.dateTimeOriginal": value = metadata.exif?.dateTimeOriginal
        case "exif.exposureValue": value = metadata.exif?.exposureValue100.map { String(format: "%.2f", $0) }
        case "capture.position": value = metadata.capture.position.rawValue
        case "capture.device": value = metadata.capture.device
        case "capture.quality": value = metadata.capture.quality.rawValue
        case "output.format": value = metadata.output.format
        case "output.encoderPreset": value = metadata.output.encoderPreset
        case "input.format":
            // The container the photo was read from (absent for a capture).
            value = metadata.inputFormat
        case _ where key.hasPrefix(sourcePrefix):
            value = metadata.auxiliaryInfo[ImageRole(rawValue: String(key.dropFirst(sourcePrefix.count)))]?.source
        default: throw .notFound
        }
        guard let value else { throw .notFound }
        return value
    }

    static func setString(_ key: String, _ value: String, on photo: inout Photo, services: any PhotoServices) throws(Failure) {
        if let entry = freeForm(key) {
            guard !entry.name.isEmpty, entry.name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) }) else {
                throw .invalid("\(entry.kind) names are letters, digits, - _ and ., not \"\(entry.name)\"")
            }
            photo.metadata[keyPath: entry.values][entry.name] = value
            return
        }
        switch key {
        case "capture.position":
            guard let position = CameraPosition(rawValue: value) else {
                throw .invalid("capture.position must be front, back, external or unspecified, not \(value)")
            }
            photo.metadata.capture.position = position
        case "capture.device":
            photo.metadata.capture.device = value
        case "capture.quality":
            guard let quality = QualityPrioritization(rawValue: value) else {
                throw .invalid("capture.quality must be speed, balanced or quality, not \(value)")
            }
            photo.metadata.capture.quality = quality
        case "output.format":
            guard let format = services.writableFormat(named: value) else {
                throw .invalid("output.format must be \(services.writableFormatNames), not \(value)")
            }
            photo.metadata.output.format = format
        case "output.encoderPreset":
            guard OutputRequest.encoderPresets.contains(value) else {
                throw .invalid(
                    "output.encoderPreset must be one of \(OutputRequest.encoderPresets.joined(separator: ", ")), not \(value)")
            }
            photo.metadata.output.encoderPreset = value
        case "exif.make", "exif.model", "exif.dateTimeOriginal", "exif.exposureValue", "input.format":
            throw .invalid("\(key) is read-only")
        case _ where key.hasPrefix(sourcePrefix):
            throw .invalid("\(key) is read-only: it says where the file stored the image")
        default: throw .notFound
        }
    }

    /// Keys under this prefix are free-form notes (ABI 1.2).
    static let notePrefix = "note."
    /// Keys under this prefix are values stages leave for later stages (ABI 1.3).
    static let sharedPrefix = "shared."

    /// A key of one of the free-form string dictionaries (notes, shared values):
    /// the dictionary, the name after the prefix, and what the names are called in errors.
    private static func freeForm(_ key: String) -> (values: WritableKeyPath<PhotoMetadata, [String: String]>, name: String, kind: String)? {
        if key.hasPrefix(notePrefix) { return (\.notes, String(key.dropFirst(notePrefix.count)), "note") }
        if key.hasPrefix(sharedPrefix) { return (\.shared, String(key.dropFirst(sharedPrefix.count)), "shared value") }
        return nil
    }

    /// Keys under this prefix say where a role's image was stored (read-only).
    static let sourcePrefix = "source."

    private static func present<T>(_ value: T?) throws(Failure) -> T {
        guard let value else { throw .notFound }
        return value
    }

    static func remove(_ key: String, from photo: inout Photo) throws(Failure) {
        if let entry = freeForm(key) {
            guard photo.metadata[keyPath: entry.values].removeValue(forKey: entry.name) != nil else { throw .notFound }
            return
        }
        switch key {
        case "exif.location": photo.metadata.stripLocation = true
        case "xmp": photo.metadata.xmp = nil
        default: throw .notFound
        }
    }
}
