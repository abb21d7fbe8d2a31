import CMovieShim
import Foundation
import MatteboxRuntime

/// Camera frames as JPEGs, made by FFmpeg's encoder: how a raw (YUYV) frame
/// is kept compact in the Live Photo pre-roll.
package enum JPEGFrame {
    /// A YUYV frame encoded as a 4:2:2 JPEG (libavcodec qscale 3: visually lossless for a movie's source).
    package static func fromYUYV(_ bytes: [UInt8], width: Int, height: Int, qscale: Int = 3) throws -> [UInt8] {
        _ = FFmpegLog.routed
        guard bytes.count >= width * height * 2 else { throw MatteboxError("YUYV frame of \(bytes.count) bytes is short for \(width)x\(height)") }
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        var error = [CChar](repeating: 0, count: 256)
        let status = bytes.withUnsafeBufferPointer {
            mbx_movie_jpeg_from_yuyv($0.baseAddress, Int32(width), Int32(height), Int32(qscale), &output, &length, &error, error.count)
        }
        guard status == 0, let output else { throw MatteboxError("cannot compress a YUYV frame: \(message(error))") }
        defer { mbx_movie_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: length))
    }
}
