import Foundation
import MatteboxPluginSDK

/// The face one vision stage found, left on the photo (`shared.vision.face`,
/// ABI 1.3) so the next vision stage takes it rather than finding it again:
/// the portrait matte and the semantic mattes both start from the largest
/// upright face, and finding it (the working frame, CenterFace, the Haar
/// pass) is the same work on the same pixels, about 0.1 s of a 12 MP photo.
/// The value records how the face was found (effort, orientation, cascades,
/// face model) and on which pixels (the primary's size and a hash of its
/// samples); a stage takes it only when all of them are its own, so a stage
/// in between that turned, cropped or repainted the photo makes the next one
/// look again. A host older than ABI 1.3 keeps nothing: each stage finds the
/// face itself, as before.
package enum SharedFace {
    /// How a face was found and on what; a stage takes a face only with its own.
    struct Source: Codable, Equatable {
        var effort: Int32
        var orientation: Int32
        var cascades: String
        var faceModel: String?
        var width: Int
        var height: Int
        var channels: Int
        var format: UInt32
        var pixels: String
    }

    /// A shared face: where it was found, and the face (nil: none was found).
    struct Value: Codable {
        var source: Source
        /// box x, y, width, height, then mouth x, y, width, height, in stored pixels.
        var rectangles: [Int32]?
        var rollDegrees: Double?
    }

    /// The largest upright face in `primary` with these options (nil when there
    /// is none): the one a previous stage left when it was found the same way on
    /// the same pixels, else found now and left for the next stage.
    package static func find(
        in primary: PluginImage, view: inout mbx_cv_image, options: inout mbx_cv_matte_options, photo: PluginPhoto
    ) throws -> mbx_cv_face? {
        let source = Source(
            effort: options.effort, orientation: options.orientation,
            cascades: options.cascade_dir.map { String(cString: $0) } ?? "",
            faceModel: options.face_model.map { String(cString: $0) }, width: primary.width, height: primary.height,
            channels: primary.channels, format: primary.format, pixels: fingerprint(primary))
        if let text = photo.string(MBX_META_SHARED_FACE), let value = try? JSONDecoder().decode(Value.self, from: Data(text.utf8)),
            value.source == source
        {
            return face(value)
        }
        var face = mbx_cv_face()
        var found: Int32 = 0
        var error = mbx_cv_error()
        guard mbx_cv_find_face(&view, &options, &face, &found, &error) == 0 else {
            throw PluginError("finding faces: \(error.text)")
        }
        let value = Value(
            source: source,
            rectangles: found != 0
                ? [face.box.x, face.box.y, face.box.width, face.box.height, face.mouth.x, face.mouth.y, face.mouth.width, face.mouth.height]
                : nil,
            rollDegrees: found != 0 ? face.roll_degrees : nil)
        if let data = try? JSONEncoder().encode(value) {
            // A host before ABI 1.3 refuses the key; the next stage then finds the face itself.
            try? photo.setString(MBX_META_SHARED_FACE, String(decoding: data, as: UTF8.self))
        }
        return found != 0 ? face : nil
    }

    private static func face(_ value: Value) -> mbx_cv_face? {
        guard let r = value.rectangles, r.count == 8 else { return nil }
        return mbx_cv_face(
            box: mbx_cv_rect(x: r[0], y: r[1], width: r[2], height: r[3]),
            mouth: mbx_cv_rect(x: r[4], y: r[5], width: r[6], height: r[7]), roll_degrees: value.rollDegrees ?? 0)
    }

    /// A 64-bit hash of every sample of the image, row by row (about 5 ms for 12 MP).
    static func fingerprint(_ image: PluginImage) -> String {
        let sampleBytes = image.format == mbx_sample_format(MBX_SAMPLE_U8) ? 1 : image.format == mbx_sample_format(MBX_SAMPLE_U16) ? 2 : 4
        let rowBytes = image.width * image.channels * sampleBytes
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for y in 0..<image.height {
            let row = UnsafeRawPointer(image.data + y * image.bytesPerRow)
            var offset = 0
            while offset + 8 <= rowBytes {
                hash = (hash ^ row.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x9e37_79b9_7f4a_7c15
                hash ^= hash >> 29
                offset += 8
            }
            while offset < rowBytes {
                hash = (hash ^ UInt64(row.load(fromByteOffset: offset, as: UInt8.self))) &* 0x1000_0000_01b3
                offset += 1
            }
        }
        return String(hash, radix: 16)
    }
}
