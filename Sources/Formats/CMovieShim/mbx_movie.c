// FFmpeg behind mbx_movie.h: decode the camera's frame (MJPEG) or take it as it
// is (YUYV, RGB), convert to 4:2:0 with libswscale, encode, and mux with the
// capture times as presentation times so dropped frames make a variable frame
// rate, not a fast movie.
#include "mbx_movie.h"

#include <libavutil/log.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct mbx_movie {
    AVFormatContext *format;
    AVStream *stream;
    AVCodecContext *encoder;
    AVCodecContext *jpeg_decoder;
    struct SwsContext *scaler;
    AVFrame *picture;   // what the encoder takes (yuv420p)
    AVFrame *decoded;   // a decoded MJPEG frame
    AVPacket *packet;
    mbx_movie_input input;
    int width, height;
    int64_t first_us;
    int64_t last_pts;
    int header_written;
};

static void say(char *error, size_t size, const char *format, ...) {
    if (!error || size == 0) return;
    va_list args;
    va_start(args, format);
    vsnprintf(error, size, format, args);
    va_end(args);
}

static void say_av(char *error, size_t size, const char *what, int code) {
    char text[AV_ERROR_MAX_STRING_SIZE] = {0};
    av_strerror(code, text, sizeof text);
    say(error, size, "%s: %s", what, text);
}

static void release(mbx_movie *movie) {
    if (!movie) return;
    avcodec_free_context(&movie->encoder);
    avcodec_free_context(&movie->jpeg_decoder);
    sws_freeContext(movie->scaler);
    av_frame_free(&movie->picture);
    av_frame_free(&movie->decoded);
    av_packet_free(&movie->packet);
    if (movie->format) {
        if (movie->format->pb) avio_closep(&movie->format->pb);
        avformat_free_context(movie->format);
    }
    av_free(movie);
}

static int set_display_matrix(AVStream *stream, int rotation_degrees, int mirrored) {
    if (rotation_degrees % 360 == 0 && !mirrored) return 0;
    uint8_t *data = av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, sizeof(int32_t) * 9);
    if (!data) return AVERROR(ENOMEM);
    int32_t *matrix = (int32_t *)data;
    // av_display_rotation_set takes the clockwise angle (ffprobe then reports it negated, counter-clockwise).
    av_display_rotation_set(matrix, (double)rotation_degrees);
    if (mirrored) av_display_matrix_flip(matrix, 1, 0);
    return 0;
}

/// The H.264/HEVC encoder: 4:2:0, microsecond time base, no B-frames (presentation order is
/// capture order, so timestamps stay monotonic), the preset and constant rate factor asked for.
static int open_encoder(mbx_movie *movie, const AVCodec *codec, const mbx_movie_options *options, char *error,
                        size_t error_size) {
    double fps = options->frames_per_second > 0 ? options->frames_per_second : 30;
    AVCodecContext *encoder = movie->encoder;
    encoder->width = options->width;
    encoder->height = options->height;
    encoder->pix_fmt = AV_PIX_FMT_YUV420P;
    encoder->time_base = (AVRational){1, 1000000};
    encoder->framerate = av_d2q(fps, 1000);
    encoder->gop_size = (int)(fps + 0.5);
    encoder->max_b_frames = 0;
    encoder->thread_count = options->threads;
    encoder->color_range = AVCOL_RANGE_MPEG;
    if (movie->format->oformat->flags & AVFMT_GLOBALHEADER) encoder->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if (options->preset) av_opt_set(encoder->priv_data, "preset", options->preset, 0);
    char crf[16];
    snprintf(crf, sizeof crf, "%d", options->crf);
    av_opt_set(encoder->priv_data, "crf", crf, 0);
    if (codec->id == AV_CODEC_ID_HEVC) av_opt_set(encoder->priv_data, "x265-params", "log-level=error", 0);
    int code = avcodec_open2(encoder, codec, NULL);
    if (code < 0) {
        say_av(error, error_size, "cannot open the encoder", code);
        return -1;
    }
    return 0;
}

/// The video stream: the encoder's parameters, `hvc1` for HEVC, a 90 kHz time base, the
/// display matrix (rotation, mirroring) and the movie's metadata.
static int set_up_stream(mbx_movie *movie, const AVCodec *codec, const mbx_movie_options *options,
                         const char *const *metadata_keys, const char *const *metadata_values, int metadata_count,
                         char *error, size_t error_size) {
    int code = avcodec_parameters_from_context(movie->stream->codecpar, movie->encoder);
    if (code < 0) {
        say_av(error, error_size, "encoder parameters", code);
        return -1;
    }
    // hvc1 (parameter sets in the sample entry) is what Apple's players accept.
    if (codec->id == AV_CODEC_ID_HEVC) movie->stream->codecpar->codec_tag = MKTAG('h', 'v', 'c', '1');
    movie->stream->time_base = (AVRational){1, 90000};
    movie->stream->avg_frame_rate = movie->encoder->framerate;
    if ((code = set_display_matrix(movie->stream, options->rotation_degrees, options->mirrored)) < 0) {
        say_av(error, error_size, "display matrix", code);
        return -1;
    }
    for (int i = 0; i < metadata_count; i++) av_dict_set(&movie->format->metadata, metadata_keys[i], metadata_values[i], 0);
    return 0;
}

/// What frames go through on their way in: FFmpeg's MJPEG decoder for MJPEG frames, and the
/// 4:2:0 picture every frame is converted into.
static int set_up_frames(mbx_movie *movie, const mbx_movie_options *options, char *error, size_t error_size) {
    int code;
    if (options->input == MBX_MOVIE_INPUT_MJPEG) {
        const AVCodec *mjpeg = avcodec_find_decoder(AV_CODEC_ID_MJPEG);
        movie->jpeg_decoder = mjpeg ? avcodec_alloc_context3(mjpeg) : NULL;
        if (!movie->jpeg_decoder || (code = avcodec_open2(movie->jpeg_decoder, mjpeg, NULL)) < 0) {
            say(error, error_size, "cannot open FFmpeg's MJPEG decoder");
            return -1;
        }
    }
    movie->picture->format = AV_PIX_FMT_YUV420P;
    movie->picture->width = options->width;
    movie->picture->height = options->height;
    if ((code = av_frame_get_buffer(movie->picture, 0)) < 0) {
        say_av(error, error_size, "frame buffer", code);
        return -1;
    }
    return 0;
}

/// Opens the file and writes the header: metadata as `mdta` tags; a fragmented movie
/// (a recording) has an empty moov and each finished fragment flushed to the file at once.
static int write_header(mbx_movie *movie, const mbx_movie_options *options, char *error, size_t error_size) {
    int code = avio_open(&movie->format->pb, options->path, AVIO_FLAG_WRITE);
    if (code < 0) {
        say_av(error, error_size, options->path, code);
        return -1;
    }
    AVDictionary *muxer = NULL;
    char flags[128] = "use_metadata_tags";
    if (options->fragmented) strcat(flags, "+frag_keyframe+empty_moov+default_base_moof");
    av_dict_set(&muxer, "movflags", flags, 0);
    if (options->fragmented) movie->format->flags |= AVFMT_FLAG_FLUSH_PACKETS;
    code = avformat_write_header(movie->format, &muxer);
    if (code >= 0) avio_flush(movie->format->pb);
    av_dict_free(&muxer);
    if (code < 0) {
        say_av(error, error_size, options->path, code);
        return -1;
    }
    movie->header_written = 1;
    return 0;
}

static mbx_movie_log_sink log_sink = NULL;

// FFmpeg's warnings and errors about a stream are detail (our own error says what failed):
// the host shows them with -v. Its panics and fatal errors are warnings.
static void forward_log_line(void *object, int level, const char *format, va_list arguments) {
    mbx_movie_log_sink sink = log_sink;
    if (!sink || level > AV_LOG_INFO) return;
    static _Thread_local int print_prefix = 1;
    char line[1024];
    av_log_format_line2(object, level, format, arguments, line, sizeof line, &print_prefix);
    size_t length = strlen(line);
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r')) line[--length] = 0;
    if (length == 0) return;
    int host_level = level <= AV_LOG_FATAL ? 2 : level <= AV_LOG_WARNING ? 1 : 0;
    sink(host_level, line);
}

void mbx_movie_set_log_sink(mbx_movie_log_sink sink) {
    log_sink = sink;
    av_log_set_callback(sink ? forward_log_line : av_log_default_callback);
}

int mbx_movie_open(const mbx_movie_options *options, const char *const *metadata_keys,
                   const char *const *metadata_values, int metadata_count, mbx_movie **out,
                   char *error, size_t error_size) {
    *out = NULL;
    av_log_set_level(AV_LOG_ERROR);
    if (options->width <= 0 || options->height <= 0 || options->width % 2 || options->height % 2) {
        say(error, error_size, "a movie needs an even width and height, not %dx%d", options->width, options->height);
        return -1;
    }
    const AVCodec *codec = avcodec_find_encoder_by_name(options->encoder);
    if (!codec) {
        say(error, error_size, "this FFmpeg has no %s encoder", options->encoder);
        return -1;
    }
    mbx_movie *movie = av_mallocz(sizeof *movie);
    if (!movie) return -1;
    movie->input = options->input;
    movie->width = options->width;
    movie->height = options->height;
    movie->first_us = INT64_MIN;
    movie->last_pts = INT64_MIN;

    int code = avformat_alloc_output_context2(&movie->format, NULL, options->container, options->path);
    if (code < 0 || !movie->format) {
        say_av(error, error_size, "cannot make a movie container", code);
        release(movie);
        return -1;
    }
    movie->stream = avformat_new_stream(movie->format, NULL);
    movie->encoder = avcodec_alloc_context3(codec);
    movie->picture = av_frame_alloc();
    movie->decoded = av_frame_alloc();
    movie->packet = av_packet_alloc();
    if (!movie->stream || !movie->encoder || !movie->picture || !movie->decoded || !movie->packet) {
        say(error, error_size, "out of memory");
        release(movie);
        return -1;
    }
    if (open_encoder(movie, codec, options, error, error_size) < 0
        || set_up_stream(movie, codec, options, metadata_keys, metadata_values, metadata_count, error, error_size) < 0
        || set_up_frames(movie, options, error, error_size) < 0 || write_header(movie, options, error, error_size) < 0) {
        release(movie);
        return -1;
    }
    *out = movie;
    return 0;
}

/// Sends what the encoder has ready to the muxer.
static int drain(mbx_movie *movie, char *error, size_t error_size) {
    while (1) {
        int code = avcodec_receive_packet(movie->encoder, movie->packet);
        if (code == AVERROR(EAGAIN) || code == AVERROR_EOF) return 0;
        if (code < 0) {
            say_av(error, error_size, "encoding", code);
            return -1;
        }
        av_packet_rescale_ts(movie->packet, movie->encoder->time_base, movie->stream->time_base);
        movie->packet->stream_index = movie->stream->index;
        code = av_interleaved_write_frame(movie->format, movie->packet);
        if (code < 0) {
            say_av(error, error_size, "writing the movie", code);
            return -1;
        }
    }
}

/// The source picture of one camera frame, as planes swscale reads.
static int source_planes(mbx_movie *movie, const uint8_t *bytes, size_t length, const uint8_t **planes,
                         int *strides, enum AVPixelFormat *format, int *width, int *height, char *error,
                         size_t error_size) {
    *width = movie->width;
    *height = movie->height;
    switch (movie->input) {
    case MBX_MOVIE_INPUT_YUYV:
    case MBX_MOVIE_INPUT_RGB24: {
        int bytes_per_pixel = movie->input == MBX_MOVIE_INPUT_YUYV ? 2 : 3;
        if (length < (size_t)movie->width * movie->height * bytes_per_pixel) {
            say(error, error_size, "frame of %zu bytes is short for %dx%d", length, movie->width, movie->height);
            return -1;
        }
        planes[0] = bytes;
        strides[0] = movie->width * bytes_per_pixel;
        *format = movie->input == MBX_MOVIE_INPUT_YUYV ? AV_PIX_FMT_YUYV422 : AV_PIX_FMT_RGB24;
        return 0;
    }
    case MBX_MOVIE_INPUT_MJPEG: {
        AVPacket *packet = av_packet_alloc();
        if (!packet) return -1;
        packet->data = (uint8_t *)bytes;
        packet->size = (int)length;
        int code = avcodec_send_packet(movie->jpeg_decoder, packet);
        av_packet_free(&packet);
        if (code >= 0) code = avcodec_receive_frame(movie->jpeg_decoder, movie->decoded);
        if (code < 0) {
            say_av(error, error_size, "decoding an MJPEG frame", code);
            return -1;
        }
        for (int i = 0; i < 4; i++) {
            planes[i] = movie->decoded->data[i];
            strides[i] = movie->decoded->linesize[i];
        }
        *format = movie->decoded->format;
        *width = movie->decoded->width;
        *height = movie->decoded->height;
        return 0;
    }
    }
    return -1;
}

int mbx_movie_append(mbx_movie *movie, const uint8_t *bytes, size_t length, int64_t timestamp_us, char *error,
                     size_t error_size) {
    if (movie->first_us == INT64_MIN) movie->first_us = timestamp_us;
    int64_t pts = timestamp_us - movie->first_us;
    if (pts <= movie->last_pts) return 1;

    const uint8_t *planes[4] = {0};
    int strides[4] = {0};
    enum AVPixelFormat format;
    int width, height;
    if (source_planes(movie, bytes, length, planes, strides, &format, &width, &height, error, error_size) < 0) return -1;
    movie->scaler = sws_getCachedContext(movie->scaler, width, height, format, movie->width, movie->height,
                                         AV_PIX_FMT_YUV420P, SWS_BILINEAR, NULL, NULL, NULL);
    if (!movie->scaler) {
        say(error, error_size, "cannot convert %s %dx%d frames", av_get_pix_fmt_name(format), width, height);
        return -1;
    }
    int code = av_frame_make_writable(movie->picture);
    if (code < 0) {
        say_av(error, error_size, "frame buffer", code);
        return -1;
    }
    sws_scale(movie->scaler, planes, strides, 0, height, movie->picture->data, movie->picture->linesize);
    if (movie->input == MBX_MOVIE_INPUT_MJPEG) av_frame_unref(movie->decoded);
    movie->picture->pts = pts;
    if ((code = avcodec_send_frame(movie->encoder, movie->picture)) < 0) {
        say_av(error, error_size, "encoding", code);
        return -1;
    }
    movie->last_pts = pts;
    return drain(movie, error, error_size);
}

int mbx_movie_finish(mbx_movie *movie, char *error, size_t error_size) {
    int result = 0;
    int code = avcodec_send_frame(movie->encoder, NULL);
    if (code < 0 && code != AVERROR_EOF) {
        say_av(error, error_size, "flushing the encoder", code);
        result = -1;
    }
    if (result == 0 && drain(movie, error, error_size) < 0) result = -1;
    if (movie->header_written && (code = av_write_trailer(movie->format)) < 0 && result == 0) {
        say_av(error, error_size, "finishing the movie", code);
        result = -1;
    }
    if (movie->format->pb && (code = avio_closep(&movie->format->pb)) < 0 && result == 0) {
        say_av(error, error_size, "closing the movie", code);
        result = -1;
    }
    release(movie);
    return result;
}

void mbx_movie_abort(mbx_movie *movie) {
    if (movie && movie->format && movie->format->pb) avio_flush(movie->format->pb);
    release(movie);
}

int mbx_movie_jpeg_from_yuyv(const uint8_t *yuyv, int width, int height, int qscale, uint8_t **out,
                             size_t *out_length, char *error, size_t error_size) {
    *out = NULL;
    *out_length = 0;
    const AVCodec *codec = avcodec_find_encoder(AV_CODEC_ID_MJPEG);
    AVCodecContext *encoder = codec ? avcodec_alloc_context3(codec) : NULL;
    AVFrame *frame = av_frame_alloc();
    AVPacket *packet = av_packet_alloc();
    struct SwsContext *scaler = NULL;
    int result = -1, code;
    if (!encoder || !frame || !packet) {
        say(error, error_size, "cannot set up FFmpeg's JPEG encoder");
        goto done;
    }
    encoder->width = width;
    encoder->height = height;
    // Full-range 4:2:2 as a JPEG holds it, named as FFmpeg wants it now (YUVJ formats are deprecated).
    encoder->pix_fmt = AV_PIX_FMT_YUV422P;
    encoder->color_range = AVCOL_RANGE_JPEG;
    encoder->time_base = (AVRational){1, 30};
    encoder->flags |= AV_CODEC_FLAG_QSCALE;
    encoder->global_quality = FF_QP2LAMBDA * qscale;
    if ((code = avcodec_open2(encoder, codec, NULL)) < 0) {
        say_av(error, error_size, "JPEG encoder", code);
        goto done;
    }
    frame->format = AV_PIX_FMT_YUV422P;
    frame->color_range = AVCOL_RANGE_JPEG;
    frame->width = width;
    frame->height = height;
    frame->quality = encoder->global_quality;
    if ((code = av_frame_get_buffer(frame, 0)) < 0) {
        say_av(error, error_size, "frame buffer", code);
        goto done;
    }
    scaler = sws_getContext(width, height, AV_PIX_FMT_YUYV422, width, height, AV_PIX_FMT_YUV422P, SWS_POINT, NULL,
                            NULL, NULL);
    if (!scaler) goto done;
    // The camera's limited range in, a JPEG's full range out (what the YUVJ format meant).
    const int *coefficients = sws_getCoefficients(SWS_CS_ITU601);
    sws_setColorspaceDetails(scaler, coefficients, 0, coefficients, 1, 0, 1 << 16, 1 << 16);
    const uint8_t *planes[4] = {yuyv, NULL, NULL, NULL};
    int strides[4] = {width * 2, 0, 0, 0};
    sws_scale(scaler, planes, strides, 0, height, frame->data, frame->linesize);
    if ((code = avcodec_send_frame(encoder, frame)) < 0 || (code = avcodec_receive_packet(encoder, packet)) < 0) {
        say_av(error, error_size, "JPEG encoding", code);
        goto done;
    }
    *out = av_malloc(packet->size);
    if (!*out) goto done;
    memcpy(*out, packet->data, packet->size);
    *out_length = packet->size;
    result = 0;
done:
    sws_freeContext(scaler);
    av_packet_free(&packet);
    av_frame_free(&frame);
    avcodec_free_context(&encoder);
    return result;
}

void mbx_movie_free(void *pointer) { av_free(pointer); }
