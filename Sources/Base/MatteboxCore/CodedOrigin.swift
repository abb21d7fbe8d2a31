import Foundation

/// Where an image of a photo was decoded from, so a writer can copy its
/// coded form instead of encoding it again when the pixels did not change
/// (no generation loss, no bloat, none of the encoder's time). The pixels'
/// fingerprint at decoding is kept; whatever a stage did to the image, in
/// place through the plugin ABI or by replacing it, shows as a different
/// fingerprint, and the writer then encodes as usual.
package struct CodedOrigin: Sendable {
    /// The input file's bytes, shared by every image decoded from it.
    package let file: EncodedFile
    /// The image's item in that file (a HEIF item ID).
    package let item: UInt32
    package let fingerprint: PixelFingerprint
    /// The ICC profile the coded pixels came with (a writer that copies them
    /// copies that profile too; a stage that changed it changed the colours).
    package let iccProfile: Data?

    /// How the image's pixels now lie compared with the coded ones: a stage
    /// that turned or mirrored an unchanged image leaves its origin in place
    /// with this transform (as an orientation: stored → now), which a writer
    /// can state (HEIF irot/imir) instead of encoding the turned pixels.
    package let geometry: ExifOrientation

    package init(file: EncodedFile, item: UInt32, decoded: PixelImage, iccProfile: Data? = nil) {
        self.init(file: file, item: item, fingerprint: PixelFingerprint(decoded), iccProfile: iccProfile, geometry: .up)
    }

    private init(file: EncodedFile, item: UInt32, fingerprint: PixelFingerprint, iccProfile: Data?, geometry: ExifOrientation) {
        self.file = file
        self.item = item
        self.fingerprint = fingerprint
        self.iccProfile = iccProfile
        self.geometry = geometry
    }

    /// The origin of `result`, which is `image` turned or mirrored by
    /// `transform`; nil when `image` had already changed (it has no origin left).
    package func transformed(_ image: PixelImage, by transform: ExifOrientation, giving result: PixelImage) -> CodedOrigin? {
        guard PixelFingerprint(image) == fingerprint else { return nil }
        return CodedOrigin(
            file: file, item: item, fingerprint: PixelFingerprint(result), iccProfile: iccProfile,
            geometry: geometry.then(transform))
    }

    /// True when `image` still holds the pixels that were decoded, with the same colour profile.
    package func isUnchanged(_ image: PixelImage, iccProfile: Data? = nil) -> Bool {
        iccProfile == self.iccProfile && PixelFingerprint(image) == fingerprint
    }
}

/// An input file's bytes as read, kept while its photo is processed.
package final class EncodedFile: Sendable {
    package let bytes: [UInt8]
    package init(_ bytes: [UInt8]) { self.bytes = bytes }
}

/// The shape and a 64-bit hash of an image's samples: equal fingerprints mean
/// the same pixels (the hash guards against edits, not against an adversary).
package struct PixelFingerprint: Sendable, Equatable {
    package let width: Int, height: Int, channels: Int
    package let format: SampleFormat
    package let hash: UInt64

    package init(_ image: PixelImage) {
        (width, height, channels, format) = (image.width, image.height, image.channels, image.format)
        hash = PixelFingerprint.hash(image.data, count: image.byteCount)
    }

    /// Eight bytes at a time, multiply-xorshift mixing (a few GB/s): 12 MP in about 10 ms.
    static func hash(_ data: UnsafeMutableRawPointer, count: Int) -> UInt64 {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(count)
        let words = count / 8
        var offset = 0
        for _ in 0..<words {
            let word = data.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            state = (state ^ word) &* 0xBF58_476D_1CE4_E5B9
            state ^= state >> 31
            offset += 8
        }
        while offset < count {
            state = (state ^ UInt64(data.load(fromByteOffset: offset, as: UInt8.self))) &* 0x94D0_49BB_1331_11EB
            offset += 1
        }
        state ^= state >> 29
        return state
    }
}
