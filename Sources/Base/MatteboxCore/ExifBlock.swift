import Foundation

/// EXIF metadata as the TIFF-structured block cameras write, read and edited in
/// place so that everything Mattebox does not touch (maker notes included)
/// survives byte for byte.
///
/// libvips and libheif hand EXIF over as this block; encoders get it back with
/// the orientation, pixel dimensions and (on request) location brought up to
/// date. Parsing is bounded: a hostile block reads as "absent", never as a crash.
package struct ExifBlock: Sendable, Equatable {
    package private(set) var bytes: [UInt8]
    private let bigEndian: Bool

    private enum Tag {
        static let orientation: UInt16 = 0x0112
        static let make: UInt16 = 0x010F
        static let model: UInt16 = 0x0110
        static let exifPointer: UInt16 = 0x8769
        static let gpsPointer: UInt16 = 0x8825
        static let dateTimeOriginal: UInt16 = 0x9003
        static let pixelXDimension: UInt16 = 0xA002
        static let pixelYDimension: UInt16 = 0xA003
        static let lensModel: UInt16 = 0xA434
        static let makerNote: UInt16 = 0x927C
        static let exposureTime: UInt16 = 0x829A
        static let fNumber: UInt16 = 0x829D
        static let photographicSensitivity: UInt16 = 0x8827
    }

    private enum FieldType {
        static let ascii: UInt16 = 2
        static let short: UInt16 = 3
        static let long: UInt16 = 4
        static let rational: UInt16 = 5
    }

    /// A field of an image file directory.
    private struct Entry {
        let entryOffset: Int
        let tag: UInt16
        let type: UInt16
        let count: UInt32
        /// Where the value bytes are: inline in the entry or at an offset.
        let valueOffset: Int
        let valueLength: Int
    }

    private static let maximumEntries = 512

    /// Reads a block that starts with the TIFF header ("II*\0" or "MM\0*"), with or
    /// without the "Exif\0\0" prefix JPEG's APP1 segment carries.
    package init?(_ data: [UInt8]) {
        var tiff = data
        if tiff.starts(with: Array("Exif\0\0".utf8)) { tiff.removeFirst(6) }
        guard tiff.count >= 8 else { return nil }
        if tiff[0] == 0x49, tiff[1] == 0x49, tiff[2] == 0x2A, tiff[3] == 0 {
            bigEndian = false
        } else if tiff[0] == 0x4D, tiff[1] == 0x4D, tiff[2] == 0, tiff[3] == 0x2A {
            bigEndian = true
        } else {
            return nil
        }
        bytes = tiff
        guard entries(inDirectoryAt: firstDirectoryOffset) != nil else { return nil }
    }

    /// A block holding an empty first directory, for photos that had no EXIF.
    package static func empty() -> ExifBlock {
        // "II", 42, first IFD at 8, zero entries, no next IFD.
        ExifBlock([0x49, 0x49, 0x2A, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0])!
    }

    // MARK: Reading

    package var orientation: Int? {
        guard let entry = entry(Tag.orientation, inDirectoryAt: firstDirectoryOffset),
            entry.type == FieldType.short
        else { return nil }
        return Int(u16(at: entry.valueOffset))
    }

    package var make: String? { string(Tag.make, inDirectoryAt: firstDirectoryOffset) }
    package var model: String? { string(Tag.model, inDirectoryAt: firstDirectoryOffset) }
    package var dateTimeOriginal: String? { exifDirectory.flatMap { string(Tag.dateTimeOriginal, inDirectoryAt: $0) } }
    package var lensModel: String? { exifDirectory.flatMap { string(Tag.lensModel, inDirectoryAt: $0) } }
    /// True when the block points to GPS data.
    /// A Live Photo's content identifier, from an Apple maker note.
    package var appleContentIdentifier: String? {
        guard let exifDirectory, let note = entry(Tag.makerNote, inDirectoryAt: exifDirectory),
            note.valueOffset >= 0, note.valueOffset + note.valueLength <= bytes.count
        else { return nil }
        return AppleMakerNote.contentIdentifier(in: bytes[note.valueOffset..<note.valueOffset + note.valueLength])
    }

    /// An iPhone's HDR headroom (its maker note's tags 33 and 48), when the note holds tag 33.
    package var appleHDRHeadroom: AppleHDRHeadroom? {
        guard let exifDirectory, let note = entry(Tag.makerNote, inDirectoryAt: exifDirectory),
            note.valueOffset >= 0, note.valueOffset + note.valueLength <= bytes.count
        else { return nil }
        let slice = bytes[note.valueOffset..<note.valueOffset + note.valueLength]
        guard let headroom = AppleMakerNote.number(AppleMakerNote.hdrHeadroomTag, in: slice) else { return nil }
        return AppleHDRHeadroom(makerNote33: headroom, makerNote48: AppleMakerNote.number(AppleMakerNote.hdrGainTag, in: slice))
    }

    /// How much light the scene had, as the exposure value at ISO 100
    /// (EV100 = log2(N²/t) − log2(ISO/100)) from ExposureTime, FNumber and
    /// PhotographicSensitivity: about 12 to 16 in daylight, 4 to 8 indoors.
    package var exposureValue100: Double? {
        guard let directory = exifDirectory, let time = rational(Tag.exposureTime, inDirectoryAt: directory),
            let aperture = rational(Tag.fNumber, inDirectoryAt: directory),
            let iso = number(Tag.photographicSensitivity, inDirectoryAt: directory), time > 0, aperture > 0, iso > 0
        else { return nil }
        return log2(aperture * aperture / time) - log2(Double(iso) / 100)
    }

    package var hasLocation: Bool { entry(Tag.gpsPointer, inDirectoryAt: firstDirectoryOffset) != nil }

    /// PixelXDimension and PixelYDimension of the EXIF directory, when present.
    package var pixelDimensions: (width: Int, height: Int)? {
        guard let directory = exifDirectory,
            let x = number(Tag.pixelXDimension, inDirectoryAt: directory),
            let y = number(Tag.pixelYDimension, inDirectoryAt: directory)
        else { return nil }
        return (x, y)
    }

    // MARK: Editing

    /// Sets the Orientation tag (1...8), adding it when the block lacks one.
    package mutating func setOrientation(_ value: Int) {
        precondition((1...8).contains(value), "EXIF orientation is 1...8")
        if let entry = entry(Tag.orientation, inDirectoryAt: firstDirectoryOffset), entry.type == FieldType.short {
            put16(UInt16(value), at: entry.valueOffset)
            return
        }
        var raw = [UInt8](repeating: 0, count: 12)
        write16(Tag.orientation, into: &raw, at: 0)
        write16(FieldType.short, into: &raw, at: 2)
        write32(1, into: &raw, at: 4)
        write16(UInt16(value), into: &raw, at: 8)
        rewriteFirstDirectory(removing: [Tag.orientation], adding: [raw])
    }

    /// Brings PixelXDimension/PixelYDimension up to date where the block has them.
    package mutating func setPixelDimensions(width: Int, height: Int) {
        guard let directory = exifDirectory else { return }
        for (tag, value) in [(Tag.pixelXDimension, width), (Tag.pixelYDimension, height)] {
            guard let entry = entry(tag, inDirectoryAt: directory), entry.count == 1 else { continue }
            if entry.type == FieldType.short, value <= Int(UInt16.max) {
                put16(UInt16(value), at: entry.valueOffset)
            } else {
                put16(FieldType.long, at: entry.entryOffset + 2)
                put32(UInt32(value), at: entry.entryOffset + 8)
            }
        }
    }

    /// Removes GPS data: the pointer goes and the GPS directory and its values are
    /// zeroed, so no coordinate is left in the bytes.
    package mutating func removeLocation() {
        guard let pointer = entry(Tag.gpsPointer, inDirectoryAt: firstDirectoryOffset) else { return }
        let directory = Int(u32(at: pointer.valueOffset))
        if let fields = entries(inDirectoryAt: directory) {
            for field in fields where field.valueOffset != field.entryOffset + 8 {
                zero(field.valueOffset, field.valueLength)
            }
            zero(directory, 2 + 12 * fields.count + 4)
        }
        rewriteFirstDirectory(removing: [Tag.gpsPointer], adding: [])
    }

    /// Drops the link to the embedded thumbnail (IFD1), which no longer matches
    /// pixels a pipeline has changed.
    package mutating func removeThumbnailLink() {
        guard let fields = entries(inDirectoryAt: firstDirectoryOffset) else { return }
        put32(0, at: firstDirectoryOffset + 2 + 12 * fields.count)
    }

    // MARK: Directory access

    private var firstDirectoryOffset: Int { Int(u32(at: 4)) }

    private var exifDirectory: Int? {
        entry(Tag.exifPointer, inDirectoryAt: firstDirectoryOffset).map { Int(u32(at: $0.valueOffset)) }
    }

    private func entries(inDirectoryAt offset: Int) -> [Entry]? {
        guard offset >= 8, offset + 2 <= bytes.count else { return nil }
        let count = Int(u16(at: offset))
        guard count <= ExifBlock.maximumEntries, offset + 2 + 12 * count + 4 <= bytes.count else { return nil }
        var result: [Entry] = []
        result.reserveCapacity(count)
        for index in 0..<count {
            let at = offset + 2 + 12 * index
            let type = u16(at: at + 2)
            let count = u32(at: at + 4)
            let unit: Int
            switch type {
            case 1, 2, 6, 7: unit = 1
            case 3, 8: unit = 2
            case 4, 9, 11: unit = 4
            case 5, 10, 12: unit = 8
            default: continue
            }
            let (length, overflow) = Int(count).multipliedReportingOverflow(by: unit)
            guard !overflow else { continue }
            let valueOffset = length <= 4 ? at + 8 : Int(u32(at: at + 8))
            guard valueOffset + length <= bytes.count else { continue }
            result.append(
                Entry(
                    entryOffset: at, tag: u16(at: at), type: type, count: count,
                    valueOffset: valueOffset, valueLength: length))
        }
        return result
    }

    private func entry(_ tag: UInt16, inDirectoryAt offset: Int) -> Entry? {
        entries(inDirectoryAt: offset)?.first { $0.tag == tag }
    }

    private func string(_ tag: UInt16, inDirectoryAt offset: Int) -> String? {
        guard let entry = entry(tag, inDirectoryAt: offset), entry.type == FieldType.ascii else { return nil }
        let raw = bytes[entry.valueOffset..<(entry.valueOffset + entry.valueLength)].prefix { $0 != 0 }
        let text = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        return text.isEmpty ? nil : text
    }

    private func number(_ tag: UInt16, inDirectoryAt offset: Int) -> Int? {
        guard let entry = entry(tag, inDirectoryAt: offset), entry.count >= 1 else { return nil }
        switch entry.type {
        case FieldType.short: return Int(u16(at: entry.valueOffset))
        case FieldType.long: return Int(u32(at: entry.valueOffset))
        default: return nil
        }
    }

    private func rational(_ tag: UInt16, inDirectoryAt offset: Int) -> Double? {
        guard let entry = entry(tag, inDirectoryAt: offset), entry.type == FieldType.rational, entry.count >= 1,
            entry.valueLength >= 8
        else { return nil }
        let denominator = u32(at: entry.valueOffset + 4)
        return denominator == 0 ? nil : Double(u32(at: entry.valueOffset)) / Double(denominator)
    }

    /// Writes a new first directory at the end of the block (values stay where
    /// they are, since TIFF offsets are absolute) and points the header at it.
    private mutating func rewriteFirstDirectory(removing tags: Set<UInt16>, adding added: [[UInt8]]) {
        let offset = firstDirectoryOffset
        guard let fields = entries(inDirectoryAt: offset) else { return }
        let next = u32(at: offset + 2 + 12 * fields.count)
        var raw = fields.filter { !tags.contains($0.tag) }.map { Array(bytes[$0.entryOffset..<($0.entryOffset + 12)]) }
        raw += added
        raw.sort { readTag($0) < readTag($1) }
        while bytes.count % 2 != 0 { bytes.append(0) }
        let start = bytes.count
        var directory = [UInt8](repeating: 0, count: 2 + 12 * raw.count + 4)
        write16(UInt16(raw.count), into: &directory, at: 0)
        for (index, field) in raw.enumerated() {
            directory.replaceSubrange((2 + 12 * index)..<(14 + 12 * index), with: field)
        }
        write32(next, into: &directory, at: 2 + 12 * raw.count)
        bytes += directory
        put32(UInt32(start), at: 4)
    }

    // MARK: Byte order

    private func readTag(_ raw: [UInt8]) -> UInt16 {
        bigEndian ? UInt16(raw[0]) << 8 | UInt16(raw[1]) : UInt16(raw[1]) << 8 | UInt16(raw[0])
    }

    private func u16(at offset: Int) -> UInt16 {
        guard offset >= 0, offset + 2 <= bytes.count else { return 0 }
        let a = UInt16(bytes[offset]), b = UInt16(bytes[offset + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    private func u32(at offset: Int) -> UInt32 {
        guard offset >= 0, offset + 4 <= bytes.count else { return 0 }
        let high = UInt32(u16(at: bigEndian ? offset : offset + 2))
        let low = UInt32(u16(at: bigEndian ? offset + 2 : offset))
        return high << 16 | low
    }

    private mutating func put16(_ value: UInt16, at offset: Int) { write16(value, into: &bytes, at: offset) }
    private mutating func put32(_ value: UInt32, at offset: Int) { write32(value, into: &bytes, at: offset) }

    private func write16(_ value: UInt16, into target: inout [UInt8], at offset: Int) {
        let high = UInt8(value >> 8), low = UInt8(value & 0xFF)
        target[offset] = bigEndian ? high : low
        target[offset + 1] = bigEndian ? low : high
    }

    private func write32(_ value: UInt32, into target: inout [UInt8], at offset: Int) {
        write16(UInt16(value >> 16), into: &target, at: bigEndian ? offset : offset + 2)
        write16(UInt16(value & 0xFFFF), into: &target, at: bigEndian ? offset + 2 : offset)
    }

    private mutating func zero(_ offset: Int, _ length: Int) {
        guard offset >= 0, length > 0, offset + length <= bytes.count else { return }
        for index in offset..<(offset + length) { bytes[index] = 0 }
    }
}
