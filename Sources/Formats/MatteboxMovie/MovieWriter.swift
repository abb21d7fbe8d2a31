import CMovieShim
import Foundation
import MatteboxRuntime

/// One movie file being encoded through FFmpeg (libavcodec, libavformat):
/// frames in with their capture times, which become the presentation times,
/// so a dropped frame makes a longer frame, not a faster movie. Not thread-safe:
/// one thread writes a movie (`MovieRecorder` owns one on its own thread).
package final class MovieWriter {
    package let path: String
    private var movie: OpaquePointer?

    /// Opens `path` for writing. `metadata` becomes QuickTime `mdta` keys
    /// (e.g. `com.apple.quicktime.content.identifier`); `fragmented` writes
    /// fragments of about a second so a killed process leaves a playable file.
    package init(path: String, format: MovieFormat, settings: MovieSettings, fragmented: Bool, metadata: [(String, String)] = []) throws {
        self.path = path
        _ = FFmpegLog.routed
        var error = [CChar](repeating: 0, count: 512)
        let status = path.withCString { cPath in
            settings.container.rawValue.withCString { container in
                settings.codec.encoder.withCString { encoder in
                    settings.preset.withCString { preset in
                        withCStrings(metadata.map(\.0)) { keys in
                            withCStrings(metadata.map(\.1)) { values in
                                var options = mbx_movie_options(
                                    path: cPath, container: container, encoder: encoder, preset: preset,
                                    crf: Int32(settings.quality.constantRateFactor(for: settings.codec)),
                                    width: Int32(format.width), height: Int32(format.height), input: format.input.cValue,
                                    frames_per_second: format.framesPerSecond, rotation_degrees: Int32(format.rotationDegrees),
                                    mirrored: format.mirrored ? 1 : 0, fragmented: fragmented ? 1 : 0, threads: 0)
                                return mbx_movie_open(&options, keys, values, Int32(metadata.count), &movie, &error, error.count)
                            }
                        }
                    }
                }
            }
        }
        guard status == 0, movie != nil else {
            throw MatteboxError("\(path): cannot start the movie: \(message(error))")
        }
    }

    deinit { if let movie { mbx_movie_abort(movie) } }

    /// Frames encoded so far.
    package private(set) var frameCount = 0

    /// Encodes one frame. Returns false when it was skipped because its time
    /// did not follow the last one's.
    @discardableResult
    package func append(_ frame: MovieFrame) throws -> Bool {
        guard let movie else { throw MatteboxError("\(path): the movie is already finished") }
        var error = [CChar](repeating: 0, count: 512)
        let status = frame.bytes.withUnsafeBufferPointer { bytes in
            mbx_movie_append(movie, bytes.baseAddress, bytes.count, Int64(frame.timestamp / 1000), &error, error.count)
        }
        if status < 0 { throw MatteboxError("\(path): \(message(error))") }
        if status == 0 { frameCount += 1 }
        return status == 0
    }

    /// Flushes the encoder and writes the index; the file is complete after this.
    package func finish() throws {
        guard let movie else { return }
        self.movie = nil
        var error = [CChar](repeating: 0, count: 512)
        if mbx_movie_finish(movie, &error, error.count) != 0 {
            throw MatteboxError("\(path): \(message(error))")
        }
    }

    /// Closes without the final index: a fragmented movie keeps what its fragments hold.
    package func abandon() {
        guard let movie else { return }
        self.movie = nil
        mbx_movie_abort(movie)
    }
}

extension MovieInput {
    var cValue: mbx_movie_input {
        switch self {
        case .mjpeg: return MBX_MOVIE_INPUT_MJPEG
        case .yuyv: return MBX_MOVIE_INPUT_YUYV
        case .rgb24: return MBX_MOVIE_INPUT_RGB24
        }
    }
}

/// Calls `body` with a C array of C strings that live for the call.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { UnsafePointer($0) }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
}

/// The text of a NUL-terminated C message buffer.
func message(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
