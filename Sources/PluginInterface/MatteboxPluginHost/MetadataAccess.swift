import CMatteboxPluginABI
import MatteboxCore

/// The metadata keys plugins read and write through the host (`MBX_META_*`),
/// mapped onto the Photo model. The keys are the ABI header's own constants, so the
/// C ABI and the Swift side can never disagree about what a key is called.
enum MetadataAccess {
    enum Failure: Error {
        case notFound
        case invalid(String)
    }

    static func integer(_ key: String, of photo: Photo) throws(Failure) -> Int64 {
        let metadata = photo.metadata
        switch key {
        case MBX_META_ORIENTATION: return Int64(metadata.orientation.rawValue)
        case MBX_META_HAS_LOCATION: return metadata.hasLocation ? 1 : 0
        case MBX_META_MIRRORED: return metadata.capture.isMirrored ? 1 : 0
        case MBX_META_SENSOR_ROTATION: return Int64(metadata.capture.sensorRotation)
        case MBX_META_OUTPUT_QUALITY: return try Int64(present(metadata.output.quality))
        case MBX_META_OUTPUT_THUMBNAIL: return try Int64(present(metadata.output.thumbnailSize))
        default: throw .notFound
        }
    }

    static func setInteger(_ key: String, _ value: Int64, on photo: inout Photo) throws(Failure) {
        switch key {
        case MBX_META_ORIENTATION:
            guard let orientation = ExifOrientation(Int(value)) else {
                throw .invalid("\(key) must be 1...8, not \(value)")
            }
            photo.metadata.orientation = orientation
        case MBX_META_MIRRORED:
            photo.metadata.capture.isMirrored = value != 0
        case MBX_META_SENSOR_ROTATION:
            guard [0, 90, 180, 270].contains(value) else {
                throw .invalid("\(key) must be 0, 90, 180 or 270, not \(value)")
            }
            photo.metadata.capture.sensorRotation = Int(value)
        case MBX_META_OUTPUT_QUALITY:
            guard (1...100).contains(value) else { throw .invalid("\(key) must be 1...100, not \(value)") }
            photo.metadata.output.quality = Int(value)
        case MBX_META_OUTPUT_THUMBNAIL:
            guard (0...4096).contains(value) else {
                throw .invalid("\(key) must be 0...4096, not \(value)")
            }
            photo.metadata.output.thumbnailSize = Int(value)
        case MBX_META_HAS_LOCATION:
            throw .invalid("\(key) is read-only; remove \"\(MBX_META_LOCATION)\" to strip GPS data")
        default: throw .notFound
        }
    }

    static func string(_ key: String, of photo: Photo) throws(Failure) -> String {
        let metadata = photo.metadata
        if let entry = freeForm(key) { return try present(metadata[keyPath: entry.values][entry.name]) }
        let value: String?
        switch key {
        case MBX_META_MAKE: value = metadata.exif?.make
        case MBX_META_MODEL: value = metadata.exif?.model
        case MBX_META_DATE_TIME: value = metadata.exif?.dateTimeOriginal
        case MBX_META_EXPOSURE_VALUE: value = metadata.exif?.exposureValue100.map { String(format: "%.2f", $0) }
        case MBX_META_CAMERA_POSITION: value = metadata.capture.position.rawValue
        case MBX_META_DEVICE: value = metadata.capture.device
        case MBX_META_QUALITY: value = metadata.capture.quality.rawValue
        case MBX_META_OUTPUT_FORMAT: value = metadata.output.format
        case MBX_META_OUTPUT_PRESET: value = metadata.output.encoderPreset
        case MBX_META_INPUT_FORMAT:
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
        case MBX_META_CAMERA_POSITION:
            guard let position = CameraPosition(rawValue: value) else {
                throw .invalid("\(key) must be front, back, external or unspecified, not \(value)")
            }
            photo.metadata.capture.position = position
        case MBX_META_DEVICE:
            photo.metadata.capture.device = value
        case MBX_META_QUALITY:
            guard let quality = QualityPrioritization(rawValue: value) else {
                throw .invalid("\(key) must be speed, balanced or quality, not \(value)")
            }
            photo.metadata.capture.quality = quality
        case MBX_META_OUTPUT_FORMAT:
            guard let format = services.writableFormat(named: value) else {
                throw .invalid("\(key) must be \(services.writableFormatNames), not \(value)")
            }
            photo.metadata.output.format = format
        case MBX_META_OUTPUT_PRESET:
            guard OutputRequest.encoderPresets.contains(value) else {
                throw .invalid(
                    "output.encoderPreset must be one of \(OutputRequest.encoderPresets.joined(separator: ", ")), not \(value)")
            }
            photo.metadata.output.encoderPreset = value
        case MBX_META_MAKE, MBX_META_MODEL, MBX_META_DATE_TIME, MBX_META_EXPOSURE_VALUE, MBX_META_INPUT_FORMAT:
            throw .invalid("\(key) is read-only")
        case _ where key.hasPrefix(sourcePrefix):
            throw .invalid("\(key) is read-only: it says where the file stored the image")
        default: throw .notFound
        }
    }

    /// Keys under this prefix are free-form notes (ABI 1.2).
    static let notePrefix = MBX_META_NOTE_PREFIX
    /// Keys under this prefix are values stages leave for later stages (ABI 1.3).
    static let sharedPrefix = MBX_META_SHARED_PREFIX

    /// A key of one of the free-form string dictionaries (notes, shared values):
    /// the dictionary, the name after the prefix, and what the names are called in errors.
    private static func freeForm(_ key: String) -> (values: WritableKeyPath<PhotoMetadata, [String: String]>, name: String, kind: String)? {
        if key.hasPrefix(notePrefix) { return (\.notes, String(key.dropFirst(notePrefix.count)), "note") }
        if key.hasPrefix(sharedPrefix) { return (\.shared, String(key.dropFirst(sharedPrefix.count)), "shared value") }
        return nil
    }

    /// Keys under this prefix say where a role's image was stored (read-only).
    static let sourcePrefix = MBX_META_SOURCE_PREFIX

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
        case MBX_META_LOCATION: photo.metadata.stripLocation = true
        case "xmp": photo.metadata.xmp = nil
        default: throw .notFound
        }
    }
}
