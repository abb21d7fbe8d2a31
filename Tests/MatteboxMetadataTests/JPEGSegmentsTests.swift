import Foundation
import MatteboxMetadata
import Testing

/// The one JPEG segment walker: an APP1 replaced in place, added after APP0
/// and EXIF when missing, removed; everything else byte for byte.
@Suite struct JPEGSegmentsTests {
    func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }

    var app0: [UInt8] { segment(0xE0, Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0]) }
    var exif: [UInt8] { segment(0xE1, JPEGSegments.exifHeader + [0x4D, 0x4D, 0, 42]) }
    var comment: [UInt8] { segment(0xFE, Array("hello".utf8)) }
    /// A scan header and its data with an EOI: kept as they are.
    var scan: [UInt8] { segment(0xDA, [1, 2, 3]) + [9, 8, 7, 0xFF, 0xD9] }

    @Test func xmpIsAddedAfterAPP0AndEXIFAndReplacedInPlace() throws {
        let jpeg: [UInt8] = [0xFF, 0xD8] + app0 + exif + comment + scan
        let first = JPEGSegments.xmpHeader + Array("<x/>".utf8)
        let added = try JPEGSegments.replacingAPP1(startingWith: JPEGSegments.xmpHeader, with: first, in: jpeg, what: "XMP")
        #expect(added == [0xFF, 0xD8] + app0 + exif + segment(0xE1, first) + comment + scan)
        let second = JPEGSegments.xmpHeader + Array("<y/>".utf8)
        let replaced = try JPEGSegments.replacingAPP1(startingWith: JPEGSegments.xmpHeader, with: second, in: added, what: "XMP")
        #expect(replaced == [0xFF, 0xD8] + app0 + exif + segment(0xE1, second) + comment + scan)
        #expect(JPEGSegments.app1Payload(startingWith: JPEGSegments.xmpHeader, in: replaced).map(Array.init) == second)
        let removed = try JPEGSegments.replacingAPP1(startingWith: JPEGSegments.xmpHeader, with: nil, in: replaced, what: "XMP")
        #expect(removed == jpeg)
    }

    @Test func exifGoesFirstAndOversizedOrNonJPEGIsRefused() throws {
        let jpeg: [UInt8] = [0xFF, 0xD8] + app0 + comment + scan
        let payload = JPEGSegments.exifHeader + [0x49, 0x49, 42, 0]
        let added = try JPEGSegments.replacingAPP1(startingWith: JPEGSegments.exifHeader, with: payload, in: jpeg, what: "EXIF")
        #expect(added == [0xFF, 0xD8] + app0 + segment(0xE1, payload) + comment + scan)
        #expect(throws: (any Error).self) {
            try JPEGSegments.replacingAPP1(
                startingWith: JPEGSegments.xmpHeader, with: [UInt8](repeating: 0x20, count: 70_000), in: jpeg, what: "XMP")
        }
        #expect(throws: (any Error).self) {
            try JPEGSegments.replacingAPP1(startingWith: JPEGSegments.xmpHeader, with: nil, in: [0x89, 0x50, 0x4E, 0x47, 0], what: "XMP")
        }
    }
}
