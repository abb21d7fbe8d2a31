// Movie writing through FFmpeg (libavformat, libavcodec, libswscale) behind a few
// plain C calls: frames as a camera sends them (MJPEG or YUYV) with their capture
// times go in, an H.264 or HEVC movie in MP4 or MOV comes out. Fragmented MP4
// keeps a file readable up to its last fragment when the process dies.
#ifndef MBX_MOVIE_H
#define MBX_MOVIE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The pixel layout of the frames given to mbx_movie_append.
typedef enum {
    MBX_MOVIE_INPUT_MJPEG = 0,  // each frame a whole JPEG
    MBX_MOVIE_INPUT_YUYV = 1,   // packed 4:2:2, width * 2 bytes a line
    MBX_MOVIE_INPUT_RGB24 = 2,  // packed RGB, width * 3 bytes a line
} mbx_movie_input;

typedef struct {
    const char *path;       // the file to write (created or truncated)
    const char *container;  // "mp4" or "mov"
    const char *encoder;    // "libx264" or "libx265"
    const char *preset;     // the encoder's speed preset, e.g. "veryfast"
    int crf;                // constant rate factor: lower is better and bigger
    int width, height;
    mbx_movie_input input;
    double frames_per_second;  // the nominal rate: keyframe spacing and a hint to players
    int rotation_degrees;      // clockwise turn a player applies to show it upright
    int mirrored;              // a player flips it left-right after the turn
    int fragmented;            // fragments of about a second (moov first, empty)
    int threads;               // encoder threads, 0: the encoder's choice
} mbx_movie_options;

typedef struct mbx_movie mbx_movie;

/// Where FFmpeg's own log lines go: `level` 0 debug, 1 info, 2 warning, 3 error (the host's
/// levels), `line` one line without its newline. Until set, FFmpeg prints errors only, on
/// standard error. Lines FFmpeg marks as verbose or debug are not passed on.
typedef void (*mbx_movie_log_sink)(int level, const char *line);
void mbx_movie_set_log_sink(mbx_movie_log_sink sink);

/// Opens the file and the encoder; metadata pairs go into the container's
/// metadata as QuickTime `mdta` keys (e.g. com.apple.quicktime.content.identifier).
/// Returns 0, or -1 with a message in `error`.
int mbx_movie_open(const mbx_movie_options *options, const char *const *metadata_keys,
                   const char *const *metadata_values, int metadata_count, mbx_movie **out,
                   char *error, size_t error_size);

/// Encodes one frame whose capture time is `timestamp_us` (any clock, microseconds);
/// times must increase. Returns 0, 1 when the frame was skipped (not increasing),
/// or -1 with a message.
int mbx_movie_append(mbx_movie *movie, const uint8_t *bytes, size_t length, int64_t timestamp_us,
                     char *error, size_t error_size);

/// Flushes the encoder, writes the index and closes the file; frees the movie.
int mbx_movie_finish(mbx_movie *movie, char *error, size_t error_size);

/// Closes without finishing (the file keeps what was written) and frees the movie.
void mbx_movie_abort(mbx_movie *movie);

/// Encodes packed YUYV as a JPEG at `quality` (1-31, lower is better, libavcodec's
/// qscale) into a buffer the caller frees with mbx_movie_free. Returns 0 or -1.
int mbx_movie_jpeg_from_yuyv(const uint8_t *yuyv, int width, int height, int qscale,
                             uint8_t **out, size_t *out_length, char *error, size_t error_size);

void mbx_movie_free(void *pointer);

#ifdef __cplusplus
}
#endif
#endif
