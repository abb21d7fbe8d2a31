import Foundation

/// The Multi-Picture Format index a JPEG's APP2 `MPF` segment holds (CIPA
/// DC-007): the images stored after the primary's scan, each with its size and
/// where it starts. iPhones in JPEG mode put their disparity and portrait
/// mattes there; cameras put previews and stereo pairs. Why it exists: those
/// images are found by this index, and a damaged one (an offset past the end,
/// an entry cut short) must be told apart from a readable one, never trusted.
package struct MPFIndex: Sendable, Equatable {
    /// One image the index lists.
    package struct Entry: Sendable, Equatable {
        /// The entry's attribute word: flags, format (0: JPEG) and type.
        package var attributes: UInt32
        package var size: Int
        /// Where the image starts in the file (the index's own offsets are
        /// relative to its header; the first image's are 0).
        package var fileOffset: Int
        /// What the type code says ("baseline primary", "large thumbnail", "multi-frame"...).
        package var typeDescription: String {
            switch attributes & 0x00FF_FFFF {
            case 0x03_0000: return "baseline primary"
            case 0x01_0001: return "large thumbnail (VGA)"
            case 0x01_0002: return "large thumbnail (full HD)"
            case 0x02_0001: return "multi-frame panorama"
            case 0x02_0002: return "multi-frame disparity"
            case 0x02_0003: return "multi-frame multi-angle"
            default: return "undefined"
            }
        }
    }

    package var entries: [Entry]

    /// Reads the index from an APP2 payload that starts with "MPF\0"; `payloadOffset`
    /// is where that payload starts in the file, `fileLength` the file's length.
    /// Throws naming what is wrong: a header that is not TIFF's, an IFD or entry
    /// cut short, or an image that starts or ends outside the file.
    package init(payload: ArraySlice<UInt8>, payloadOffset: Int, fileLength: Int) throws(MPFError) {
        let bytes = Array(payload)
        guard bytes.count >= 8, bytes.starts(with: Array("MPF\0".utf8)) else { throw MPFError("the MPF segment does not start with MPF") }
        let header = 4 // where the index's TIFF header starts, inside the payload
        guard bytes.count >= header + 8 else { throw MPFError("the MPF segment is cut short before its header") }
        let little: Bool
        switch (bytes[header], bytes[header + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: throw MPFError("the MPF header is neither II nor MM")
        }
        func u16(_ at: Int) throws(MPFError) -> Int {
            guard at >= 0, at + 2 <= bytes.count else { throw MPFError("the MPF index is cut short at byte \(at)") }
            return little ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
        }
        func u32(_ at: Int) throws(MPFError) -> Int {
            guard at >= 0, at + 4 <= bytes.count else { throw MPFError("the MPF index is cut short at byte \(at)") }
            let b = bytes[at..<at + 4].map(Int.init)
            return little ? b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24 : b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3]
        }
        guard try u16(header + 2) == 42 else { throw MPFError("the MPF header's magic number is not 42") }
        let ifd = header + (try u32(header + 4))
        let count = try u16(ifd)
        guard count <= 64 else { throw MPFError("the MPF index claims \(count) fields") }
        var entryOffset: Int?, entryBytes = 0, images: Int?
        for field in 0..<count {
            let at = ifd + 2 + field * 12
            let tag = try u16(at), length = try u32(at + 4)
            switch tag {
            case 0xB001: images = try u32(at + 8)
            case 0xB002:
                entryBytes = length
                entryOffset = header + (try u32(at + 8))
            default: break
            }
        }
        guard let images, let entryOffset else { throw MPFError("the MPF index has no image count or no MP entries") }
        guard images >= 1, images <= 1024, entryBytes == images * 16 else {
            throw MPFError("the MPF index lists \(images) images in \(entryBytes) bytes of entries (16 each)")
        }
        var entries: [Entry] = []
        for index in 0..<images {
            let at = entryOffset + index * 16
            let attributes = UInt32(try u32(at)), size = try u32(at + 4), offset = try u32(at + 8)
            // Offsets count from the index's header; the first image's is 0 (the file's start).
            let start = offset == 0 ? 0 : payloadOffset + header + offset
            guard size > 0, start >= 0, start + size <= fileLength else {
                throw MPFError("MPF image \(index + 1) (\(size) bytes at \(start)) lies outside the file's \(fileLength) bytes")
            }
            entries.append(Entry(attributes: attributes, size: size, fileOffset: start))
        }
        self.entries = entries
    }

    /// A whole APP2 segment (marker and length included) indexing a primary of `primaryLength`
    /// bytes and the images after it, each by its size and its offset from the index's header
    /// (the byte after "MPF\0"), big-endian. The primary is typed "baseline primary" and marked
    /// representative; the others are left undefined, as Ultra HDR writers type a gain map.
    package static func segment(primaryLength: Int, following images: [(size: Int, offset: Int)]) -> [UInt8] {
        var payload = Array("MPF\0".utf8)
        func u16(_ value: Int) { payload += [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func u32(_ value: Int) { payload += [24, 16, 8, 0].map { UInt8(value >> $0 & 0xFF) } }
        payload += [0x4D, 0x4D, 0x00, 0x2A]
        u32(8)
        let fields = 3, entriesAt = 8 + 2 + fields * 12 + 4
        u16(fields)
        u16(0xB000); u16(7); u32(4); payload += Array("0100".utf8)
        u16(0xB001); u16(4); u32(1); u32(1 + images.count)
        u16(0xB002); u16(7); u32(16 * (1 + images.count)); u32(entriesAt)
        u32(0)
        u32(0x2003_0000); u32(primaryLength); u32(0); u16(0); u16(0)
        for image in images {
            u32(0); u32(image.size); u32(image.offset); u16(0); u16(0)
        }
        return [0xFF, 0xE2, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }

    /// The index of a JPEG, when it has an MPF segment; throws when that segment is damaged.
    package static func read(from jpeg: [UInt8]) throws(MPFError) -> MPFIndex? {
        guard let segment = JPEGSegments.segments(of: jpeg).first(where: \.isMPF) else { return nil }
        return try MPFIndex(payload: segment.payload, payloadOffset: segment.payload.startIndex, fileLength: jpeg.count)
    }
}

/// Why an MPF index could not be read.
package struct MPFError: Error, CustomStringConvertible, Sendable {
    package var description: String
    package init(_ description: String) { self.description = description }
}
