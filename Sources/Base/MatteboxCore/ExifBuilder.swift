import Foundation

/// Writes a new EXIF block (little-endian TIFF) for photos that come with
/// none: captured frames. IFD0 holds Make, Model, Software, Orientation and
/// DateTime; the EXIF IFD holds DateTimeOriginal with sub-seconds and the UTC
/// offset, and the exposure time, ISO and white balance when the camera said
/// them. It is what rpicam-still and phones write, read back by `ExifBlock`.
package struct ExifBuilder {
    package var make: String?
    package var model: String?
    package var software: String?
    package var orientation: ExifOrientation = .up
    package var date: Date?
    package var timeZone = TimeZone.current
    /// Seconds.
    package var exposureTime: Double?
    package var iso: Int?
    /// True: automatic white balance (EXIF WhiteBalance 0); false: manual (1).
    package var autoWhiteBalance: Bool?
    /// A Live Photo's content identifier, written in an Apple maker note (`AppleMakerNote`).
    package var appleContentIdentifier: String?

    package init() {}

    private enum Kind: UInt16 { case ascii = 2, short = 3, long = 4, rational = 5, undefined = 7 }

    private struct Field {
        let tag: UInt16
        let kind: Kind
        let count: Int
        let value: [UInt8]
    }

    package func build() -> ExifBlock {
        let stamp = date.map(dateText)
        var ifd0: [Field] = []
        if let make { ifd0.append(ascii(0x010F, make)) }
        if let model { ifd0.append(ascii(0x0110, model)) }
        ifd0.append(short(0x0112, UInt16(orientation.rawValue)))
        if let software { ifd0.append(ascii(0x0131, software)) }
        if let stamp { ifd0.append(ascii(0x0132, stamp.dateTime)) }
        var exif: [Field] = []
        if let exposureTime, exposureTime > 0 {
            // A fraction a photographer reads: 1/60 rather than 0.0166.
            let denominator: UInt32 = exposureTime < 1 ? UInt32((1 / exposureTime).rounded()) : 1
            let numerator: UInt32 = exposureTime < 1 ? 1 : UInt32(exposureTime.rounded())
            exif.append(Field(tag: 0x829A, kind: .rational, count: 1, value: le32(numerator) + le32(denominator)))
        }
        if let iso { exif.append(short(0x8827, UInt16(clamping: iso))) }
        if let stamp {
            exif.append(ascii(0x9003, stamp.dateTime))
            exif.append(ascii(0x9011, stamp.offset))
            exif.append(ascii(0x9291, stamp.subSeconds))
        }
        if let autoWhiteBalance { exif.append(short(0xA403, autoWhiteBalance ? 0 : 1)) }
        if let appleContentIdentifier {
            let note = AppleMakerNote.make(contentIdentifier: appleContentIdentifier)
            exif.append(Field(tag: 0x927C, kind: .undefined, count: note.count, value: note))
        }
        if !exif.isEmpty { ifd0.append(Field(tag: 0x8769, kind: .long, count: 1, value: le32(0))) }
        return ExifBlock(layout(ifd0, exif))!
    }

    /// TIFF header, IFD0 and its values, then the EXIF IFD and its values.
    private func layout(_ ifd0: [Field], _ exif: [Field]) -> [UInt8] {
        let sorted0 = ifd0.sorted { $0.tag < $1.tag }, sortedExif = exif.sorted { $0.tag < $1.tag }
        let ifd0Size = 2 + sorted0.count * 12 + 4
        let values0 = sorted0.filter { $0.value.count > 4 }.reduce(0) { $0 + padded($1.value.count) }
        let exifOffset = 8 + ifd0Size + values0
        var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + le32(8)
        bytes += directory(sorted0, at: 8) { field in field.tag == 0x8769 ? le32(UInt32(exifOffset)) : nil }
        if !sortedExif.isEmpty { bytes += directory(sortedExif, at: exifOffset) { _ in nil } }
        return bytes
    }

    private func directory(_ fields: [Field], at offset: Int, override: (Field) -> [UInt8]?) -> [UInt8] {
        var entries: [UInt8] = le16(UInt16(fields.count))
        var values: [UInt8] = []
        var valueOffset = offset + 2 + fields.count * 12 + 4
        for field in fields {
            entries += le16(field.tag) + le16(field.kind.rawValue) + le32(UInt32(field.count))
            let value = override(field) ?? field.value
            if value.count <= 4 {
                entries += value + [UInt8](repeating: 0, count: 4 - value.count)
            } else {
                entries += le32(UInt32(valueOffset))
                values += value + [UInt8](repeating: 0, count: padded(value.count) - value.count)
                valueOffset += padded(value.count)
            }
        }
        return entries + le32(0) + values
    }

    private func dateText(_ date: Date) -> (dateTime: String, subSeconds: String, offset: String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .nanosecond], from: date)
        let dateTime = String(
            format: "%04d:%02d:%02d %02d:%02d:%02d", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!,
            parts.second!)
        let minutes = timeZone.secondsFromGMT(for: date) / 60
        let offset = String(format: "%@%02d:%02d", minutes < 0 ? "-" : "+", abs(minutes) / 60, abs(minutes) % 60)
        return (dateTime, String(format: "%03d", (parts.nanosecond ?? 0) / 1_000_000), offset)
    }

    private func ascii(_ tag: UInt16, _ text: String) -> Field {
        let bytes = Array(text.utf8.filter { $0 != 0 }) + [0]
        return Field(tag: tag, kind: .ascii, count: bytes.count, value: bytes)
    }

    private func short(_ tag: UInt16, _ value: UInt16) -> Field { Field(tag: tag, kind: .short, count: 1, value: le16(value)) }
    private func padded(_ count: Int) -> Int { (count + 1) & ~1 }
    private func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
}
