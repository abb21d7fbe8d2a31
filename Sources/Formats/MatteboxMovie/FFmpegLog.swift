import CMovieShim
import MatteboxRuntime

/// FFmpeg's own log lines (a scaler's warning, a muxer's note) go through the
/// project's log, category `ffmpeg`, instead of straight onto standard error:
/// warnings and errors are shown with -v, the rest with -vv, none with -q.
enum FFmpegLog {
    /// Routes them; done once, before the first FFmpeg call.
    static let routed: Void = {
        mbx_movie_set_log_sink { level, line in
            guard let line else { return }
            let levels: [LogLevel] = [.debug, .info, .warning, .error]
            Log.emit(levels[Int(max(0, min(3, level)))], String(cString: line), category: "ffmpeg")
        }
    }()
}
