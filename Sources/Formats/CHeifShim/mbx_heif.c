#include "mbx_heif.h"

#include <libheif/heif.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char **error, const char *format, ...) {
    if (error) {
        char buffer[512];
        va_list args;
        va_start(args, format);
        vsnprintf(buffer, sizeof buffer, format, args);
        va_end(args);
        *error = strdup(buffer);
    }
    return 1;
}

static int failed(struct heif_error err, const char *what, char **error) {
    if (err.code == heif_error_Ok) return 0;
    return fail(error, "libheif: %s: %s", what, err.message ? err.message : "unknown error");
}

/* ---- encoding ---- */

typedef struct growing_buffer {
    uint8_t *data;
    size_t size;
} growing_buffer;

static struct heif_error append_to_buffer(struct heif_context *ctx, const void *data, size_t size, void *userdata) {
    (void)ctx;
    growing_buffer *buffer = userdata;
    uint8_t *grown = realloc(buffer->data, buffer->size + size);
    if (!grown) {
        struct heif_error err = {heif_error_Encoding_error, heif_suberror_Unspecified, "out of memory"};
        return err;
    }
    memcpy(grown + buffer->size, data, size);
    buffer->data = grown;
    buffer->size += size;
    struct heif_error ok = {heif_error_Ok, heif_suberror_Unspecified, "ok"};
    return ok;
}

/* Copies interleaved input samples into the image's plane, scaling 16-bit
 * input down to the plane's bit depth. */
static void fill_plane(const mbx_heif_pixels *in, uint8_t *plane, int stride, int bit_depth) {
    int samples = in->width * in->channels;
    for (int y = 0; y < in->height; y++) {
        uint8_t *row = plane + (size_t)y * stride;
        if (in->bytes_per_sample == 1 && bit_depth == 8) {
            memcpy(row, (const uint8_t *)in->data + (size_t)y * samples, samples);
        } else if (in->bytes_per_sample == 1) {
            const uint8_t *src = (const uint8_t *)in->data + (size_t)y * samples;
            uint16_t *dst = (uint16_t *)row;
            for (int i = 0; i < samples; i++) dst[i] = (uint16_t)((src[i] << (bit_depth - 8)) | (src[i] >> (16 - bit_depth)));
        } else if (bit_depth == 8) {
            const uint16_t *src = (const uint16_t *)in->data + (size_t)y * samples;
            for (int i = 0; i < samples; i++) row[i] = (uint8_t)(src[i] >> 8);
        } else {
            const uint16_t *src = (const uint16_t *)in->data + (size_t)y * samples;
            uint16_t *dst = (uint16_t *)row;
            for (int i = 0; i < samples; i++) dst[i] = (uint16_t)(src[i] >> (16 - bit_depth));
        }
    }
}

/* libheif 1.15's arithmetic for 8-bit RGB to YCbCr: BT.601 (matrix 6) full
 * range, its coefficients worked out in float from Kr and Kb as libheif does. */
static uint8_t clip_to_byte(float value) {
    long rounded = (long)(value + 0.5f);
    return rounded < 0 ? 0 : rounded > 255 ? 255 : (uint8_t)rounded;
}

/* One chroma sample (Cb and Cr) from the mean colour of the pixels it covers. */
static void set_chroma(uint8_t *cb, uint8_t *cr, const uint8_t mean[3], const float c[3][3]) {
    *cb = clip_to_byte(mean[0] * c[1][0] + mean[1] * c[1][1] + mean[2] * c[1][2] + 128);
    *cr = clip_to_byte(mean[0] * c[2][0] + mean[1] * c[2][1] + mean[2] * c[2][2] + 128);
}

/* The mean colour of the pixel at `p` and, when `pair`, the one `step` bytes on (an odd edge's). */
static void edge_mean(const uint8_t *p, size_t step, int pair, uint8_t mean[3]) {
    for (int k = 0; k < 3; k++) mean[k] = pair ? (uint8_t)((p[k] + p[step + k]) / 2) : p[k];
}

/* The 8-bit RGB pixels as a YCbCr 4:2:0 image, made here straight from the
 * caller's pixels. Handed RGB, libheif would first copy them into an RGB
 * image of its own (36 MiB for 12 MP) and keep that through the encode. The
 * result is what libheif's own conversion makes (chroma from the truncated
 * mean of each 2x2 block, of 2 along an odd edge; the nclx it writes, 6/2/2
 * full range), so the coded stream is the same bytes. */
static struct heif_image *ycbcr420_image(const mbx_heif_pixels *in, char **error) {
    const float kr = 0.299f, kb = 0.114f;
    const float c[3][3] = {
        {kr, 1 - kr - kb, kb},
        {-kr / (1 - kb) / 2, -(1 - kr - kb) / (1 - kb) / 2, 0.5f},
        {0.5f, -(1 - kr - kb) / (1 - kr) / 2, -kb / (1 - kr) / 2},
    };
    const int width = in->width, height = in->height, stride = width * 3;
    const int chroma_width = (width + 1) / 2, chroma_height = (height + 1) / 2;
    struct heif_image *image = NULL;
    if (failed(heif_image_create(width, height, heif_colorspace_YCbCr, heif_chroma_420, &image), "create image", error)) return NULL;
    if (failed(heif_image_add_plane(image, heif_channel_Y, width, height, 8), "add plane", error) ||
        failed(heif_image_add_plane(image, heif_channel_Cb, chroma_width, chroma_height, 8), "add plane", error) ||
        failed(heif_image_add_plane(image, heif_channel_Cr, chroma_width, chroma_height, 8), "add plane", error)) {
        heif_image_release(image);
        return NULL;
    }
    struct heif_color_profile_nclx *nclx = heif_nclx_color_profile_alloc();
    nclx->matrix_coefficients = heif_matrix_coefficients_ITU_R_BT_601_6;
    nclx->color_primaries = heif_color_primaries_unspecified;
    nclx->transfer_characteristics = heif_transfer_characteristic_unspecified;
    nclx->full_range_flag = 1;
    struct heif_error set = heif_image_set_nclx_color_profile(image, nclx);
    heif_nclx_color_profile_free(nclx);
    if (failed(set, "colour profile", error)) {
        heif_image_release(image);
        return NULL;
    }
    int y_stride = 0, cb_stride = 0, cr_stride = 0;
    uint8_t *luma = heif_image_get_plane(image, heif_channel_Y, &y_stride);
    uint8_t *cb = heif_image_get_plane(image, heif_channel_Cb, &cb_stride);
    uint8_t *cr = heif_image_get_plane(image, heif_channel_Cr, &cr_stride);
    const uint8_t *rgb = in->data;
    for (int y = 0; y < height; y++) {
        const uint8_t *p = rgb + (size_t)y * stride;
        for (int x = 0; x < width; x++, p += 3) luma[(size_t)y * y_stride + x] = clip_to_byte(p[0] * c[0][0] + p[1] * c[0][1] + p[2] * c[0][2]);
    }
    for (int y = 0; y < (height & ~1); y += 2) {
        const uint8_t *p = rgb + (size_t)y * stride;
        for (int x = 0; x < (width & ~1); x += 2, p += 6) {
            uint8_t mean[3];
            for (int k = 0; k < 3; k++) mean[k] = (uint8_t)((p[k] + p[3 + k] + p[stride + k] + p[stride + 3 + k]) / 4);
            set_chroma(cb + (size_t)(y / 2) * cb_stride + x / 2, cr + (size_t)(y / 2) * cr_stride + x / 2, mean, c);
        }
    }
    /* An odd width's right column by pairs of rows, an odd height's bottom row by pairs of columns. */
    for (int y = 0; (width & 1) && y < height; y += 2) {
        uint8_t mean[3];
        edge_mean(rgb + (size_t)y * stride + (size_t)(width - 1) * 3, (size_t)stride, y + 1 < height, mean);
        set_chroma(cb + (size_t)(y / 2) * cb_stride + (width - 1) / 2, cr + (size_t)(y / 2) * cr_stride + (width - 1) / 2, mean, c);
    }
    for (int x = 0; (height & 1) && x < width; x += 2) {
        uint8_t mean[3];
        edge_mean(rgb + (size_t)(height - 1) * stride + (size_t)x * 3, 3, x + 1 < width, mean);
        set_chroma(cb + (size_t)((height - 1) / 2) * cb_stride + x / 2, cr + (size_t)((height - 1) / 2) * cr_stride + x / 2, mean, c);
    }
    return image;
}

/* The pixels as the image libheif encodes: 8-bit RGB for HEVC as YCbCr 4:2:0
 * made here; anything else as RGB (or grey) that libheif converts itself. */
static struct heif_image *encodable_image(const mbx_heif_pixels *in, int compression, int bit_depth, char **error) {
    if (compression == MBX_HEIF_HEVC && in->channels == 3 && in->bytes_per_sample == 1 && bit_depth == 8) {
        return ycbcr420_image(in, error);
    }
    int mono = in->channels == 1;
    enum heif_chroma chroma = mono ? heif_chroma_monochrome
                                   : (bit_depth == 8 ? heif_chroma_interleaved_RGB : heif_chroma_interleaved_RRGGBB_LE);
    enum heif_channel channel = mono ? heif_channel_Y : heif_channel_interleaved;
    struct heif_image *image = NULL;
    if (failed(heif_image_create(in->width, in->height, mono ? heif_colorspace_monochrome : heif_colorspace_RGB, chroma, &image),
               "create image", error)) return NULL;
    if (failed(heif_image_add_plane(image, channel, in->width, in->height, bit_depth), "add plane", error)) {
        heif_image_release(image);
        return NULL;
    }
    int stride = 0;
    uint8_t *plane = heif_image_get_plane(image, channel, &stride);
    if (!plane) {
        heif_image_release(image);
        fail(error, "libheif: no plane to write into");
        return NULL;
    }
    fill_plane(in, plane, stride, bit_depth);
    return image;
}

/* One image encoded into a HEIF file of its own, in memory. */
static int encode_file(const mbx_heif_pixels *in, const mbx_heif_encode_settings *settings, int bit_depth, mbx_heif_blob *out,
                       char **error) {
    const int av1 = settings->compression == MBX_HEIF_AV1;
    struct heif_context *ctx = heif_context_alloc();
    struct heif_image *image = NULL;
    struct heif_encoder *encoder = NULL;
    struct heif_encoding_options *options = NULL;
    struct heif_image_handle *handle = NULL;
    growing_buffer buffer = {NULL, 0};
    int status = 1;

    image = encodable_image(in, settings->compression, bit_depth, error);
    if (!image) goto done;
    if (failed(heif_context_get_encoder_for_format(ctx, av1 ? heif_compression_AV1 : heif_compression_HEVC, &encoder),
               av1 ? "AV1 encoder" : "HEVC encoder", error)) goto done;
    if (failed(heif_encoder_set_lossy_quality(encoder, settings->quality), "quality", error)) goto done;
    if (!av1 && settings->preset &&
        failed(heif_encoder_set_parameter_string(encoder, "preset", settings->preset), "preset", error)) goto done;
    if (av1 && settings->speed >= 0 &&
        failed(heif_encoder_set_parameter_integer(encoder, "speed", settings->speed), "speed", error)) goto done;

    options = heif_encoding_options_alloc();
    options->save_alpha_channel = 0;
    options->macOS_compatibility_workaround = 0; /* odd sizes: clap, not a grid */
    if (failed(heif_context_encode_image(ctx, image, encoder, options, &handle), "encode", error)) goto done;
    struct heif_writer writer = {1, append_to_buffer};
    if (failed(heif_context_write(ctx, &writer, &buffer), "write", error)) goto done;
    out->data = buffer.data;
    out->size = buffer.size;
    buffer.data = NULL;
    status = 0;

done:
    free(buffer.data);
    if (handle) heif_image_handle_release(handle);
    if (options) heif_encoding_options_free(options);
    if (encoder) heif_encoder_release(encoder);
    if (image) heif_image_release(image);
    heif_context_free(ctx);
    return status;
}

/* The thumbnail's pixels: the nearest pixel of `in` for each, at the size
 * libheif's own thumbnails take (fitting the box, even width and height). */
static int thumbnail_pixels(const mbx_heif_pixels *in, int box, mbx_heif_pixels *out, char **error) {
    const int width = in->width, height = in->height;
    int small_width, small_height;
    if (width > height) {
        small_height = height * box / width;
        small_width = box;
    } else {
        small_width = width * box / height;
        small_height = box;
    }
    small_width &= ~1;
    small_height &= ~1;
    const size_t pixel = (size_t)in->channels * in->bytes_per_sample;
    *out = *in;
    out->width = small_width;
    out->height = small_height;
    out->data = malloc((size_t)small_width * small_height * pixel + 1);
    if (!out->data) return fail(error, "out of memory for the thumbnail");
    for (int y = 0; y < small_height; y++) {
        const int from_y = (int)((long)y * height / small_height);
        for (int x = 0; x < small_width; x++) {
            const int from_x = (int)((long)x * width / small_width);
            memcpy((uint8_t *)out->data + ((size_t)y * small_width + x) * pixel,
                   (const uint8_t *)in->data + ((size_t)from_y * width + from_x) * pixel, pixel);
        }
    }
    return 0;
}

int mbx_heif_encode(const mbx_heif_pixels *in, const mbx_heif_encode_settings *settings,
                    mbx_heif_blob *out_file, mbx_heif_blob *out_thumbnail, char **error) {
    memset(out_file, 0, sizeof *out_file);
    memset(out_thumbnail, 0, sizeof *out_thumbnail);
    if (in->channels != 1 && in->channels != 3) return fail(error, "image coding takes 1 or 3 channels, not %d", in->channels);
    const int bit_depth = settings->bit_depth == 12 ? 12 : settings->bit_depth == 10 ? 10 : 8;
    if (encode_file(in, settings, bit_depth, out_file, error)) return 1;
    const int box = settings->thumbnail_bbox;
    if (box > 0 && (in->width > box || in->height > box)) {
        mbx_heif_pixels small;
        if (thumbnail_pixels(in, box, &small, error)) return 1;
        const int status = encode_file(&small, settings, bit_depth, out_thumbnail, error);
        free(small.data);
        if (status) return 1;
    }
    return 0;
}

/* ---- decoding ---- */

static struct heif_context *open_context(const void *file, size_t size, char **error) {
    struct heif_context *ctx = heif_context_alloc();
    if (failed(heif_context_read_from_memory_without_copy(ctx, file, size, NULL), "read", error)) {
        heif_context_free(ctx);
        return NULL;
    }
    return ctx;
}

int mbx_heif_decode(const void *file, size_t size, int channels, int bits,
                    mbx_heif_pixels *out, char **error) {
    memset(out, 0, sizeof *out);
    struct heif_context *ctx = open_context(file, size, error);
    if (!ctx) return 1;
    struct heif_image_handle *handle = NULL;
    struct heif_image *image = NULL;
    int status = 1;
    int wide = bits > 8;
    int mono = channels == 1;

    if (failed(heif_context_get_primary_image_handle(ctx, &handle), "primary image", error)) goto done;
    enum heif_chroma chroma = mono ? heif_chroma_monochrome
                                   : (wide ? heif_chroma_interleaved_RRGGBB_LE : heif_chroma_interleaved_RGB);
    if (failed(heif_decode_image(handle, &image, mono ? heif_colorspace_monochrome : heif_colorspace_RGB, chroma, NULL),
               "decode", error)) goto done;
    enum heif_channel channel = mono ? heif_channel_Y : heif_channel_interleaved;
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, channel, &stride);
    int width = heif_image_get_width(image, channel);
    int height = heif_image_get_height(image, channel);
    int plane_bits = heif_image_get_bits_per_pixel_range(image, channel);
    if (!plane || width <= 0 || height <= 0) { fail(error, "libheif: decoded image has no pixels"); goto done; }

    int bytes = wide ? 2 : 1;
    size_t row_bytes = (size_t)width * channels * bytes;
    uint8_t *pixels = malloc(row_bytes * height);
    if (!pixels) { fail(error, "out of memory for a %dx%d image", width, height); goto done; }
    for (int y = 0; y < height; y++) {
        const uint8_t *src = plane + (size_t)y * stride;
        uint8_t *dst = pixels + (size_t)y * row_bytes;
        if (!wide) {
            memcpy(dst, src, row_bytes);
        } else {
            /* Stretch the plane's range (10 or 12 bits) to the full 16 bits. */
            const uint16_t *s = (const uint16_t *)src;
            uint16_t *d = (uint16_t *)dst;
            int shift = 16 - plane_bits;
            for (size_t i = 0; i < (size_t)width * channels; i++) {
                uint32_t v = s[i];
                d[i] = (uint16_t)(shift > 0 ? (v << shift) | (v >> (plane_bits - shift)) : v);
            }
        }
    }
    out->data = pixels;
    out->width = width;
    out->height = height;
    out->channels = channels;
    out->bytes_per_sample = bytes;
    status = 0;

done:
    if (image) heif_image_release(image);
    if (handle) heif_image_handle_release(handle);
    heif_context_free(ctx);
    return status;
}

/* ---- cross-check ---- */

static void append(char **text, size_t *length, const char *format, ...) {
    char line[1024];
    va_list args;
    va_start(args, format);
    int n = vsnprintf(line, sizeof line, format, args);
    va_end(args);
    if (n < 0) return;
    if ((size_t)n >= sizeof line) n = sizeof line - 1;
    char *grown = realloc(*text, *length + n + 1);
    if (!grown) return;
    memcpy(grown + *length, line, n + 1);
    *text = grown;
    *length += n;
}

static void append_value(char **text, size_t *length, int present, double value) {
    if (present) append(text, length, " %.6f", value);
    else append(text, length, " -");
}

int mbx_heif_describe(const void *file, size_t size, char **out_text, char **error) {
    *out_text = NULL;
    struct heif_context *ctx = open_context(file, size, error);
    if (!ctx) return 1;
    struct heif_image_handle *primary = NULL;
    char *text = NULL;
    size_t length = 0;
    if (failed(heif_context_get_primary_image_handle(ctx, &primary), "primary image", error)) {
        heif_context_free(ctx);
        return 1;
    }
    append(&text, &length, "primary %d %d\n", heif_image_handle_get_width(primary), heif_image_handle_get_height(primary));

    heif_item_id thumbs[16];
    int thumb_count = heif_image_handle_get_list_of_thumbnail_IDs(primary, thumbs, 16);
    for (int i = 0; i < thumb_count; i++) {
        struct heif_image_handle *thumb = NULL;
        if (heif_image_handle_get_thumbnail(primary, thumbs[i], &thumb).code == heif_error_Ok) {
            append(&text, &length, "thumbnail %d %d\n", heif_image_handle_get_width(thumb), heif_image_handle_get_height(thumb));
            heif_image_handle_release(thumb);
        }
    }

    heif_item_id ids[64];
    int count = heif_image_handle_get_list_of_auxiliary_image_IDs(primary, 0, ids, 64);
    for (int i = 0; i < count; i++) {
        struct heif_image_handle *aux = NULL;
        if (heif_image_handle_get_auxiliary_image_handle(primary, ids[i], &aux).code != heif_error_Ok) continue;
        const char *type = NULL;
        if (heif_image_handle_get_auxiliary_type(aux, &type).code == heif_error_Ok && type) {
            append(&text, &length, "aux %u %s %d %d\n", (unsigned)ids[i], type,
                   heif_image_handle_get_width(aux), heif_image_handle_get_height(aux));
            heif_image_handle_free_auxiliary_types(aux, &type);
        }
        heif_image_handle_release(aux);
    }

    if (heif_image_handle_has_depth_image(primary)) {
        heif_item_id depth_id;
        if (heif_image_handle_get_list_of_depth_image_IDs(primary, &depth_id, 1) == 1) {
            const struct heif_depth_representation_info *info = NULL;
            if (heif_image_handle_get_depth_image_representation_info(primary, depth_id, &info) && info) {
                append(&text, &length, "depth-representation %d", (int)info->depth_representation_type);
                append_value(&text, &length, info->has_d_min, info->d_min);
                append_value(&text, &length, info->has_d_max, info->d_max);
                append_value(&text, &length, info->has_z_near, info->z_near);
                append_value(&text, &length, info->has_z_far, info->z_far);
                append(&text, &length, "\n");
                heif_depth_representation_info_free(info);
            }
        }
    }

    int blocks = heif_image_handle_get_number_of_metadata_blocks(primary, NULL);
    if (blocks > 16) blocks = 16;
    heif_item_id metadata[16];
    heif_image_handle_get_list_of_metadata_block_IDs(primary, NULL, metadata, blocks);
    for (int i = 0; i < blocks; i++) {
        append(&text, &length, "metadata %s %zu\n", heif_image_handle_get_metadata_type(primary, metadata[i]),
               heif_image_handle_get_metadata_size(primary, metadata[i]));
    }

    heif_image_handle_release(primary);
    heif_context_free(ctx);
    *out_text = text ? text : strdup("");
    return 0;
}

void mbx_heif_pixels_free(mbx_heif_pixels *pixels) {
    if (!pixels) return;
    free(pixels->data);
    pixels->data = NULL;
}

void mbx_heif_blob_free(mbx_heif_blob *blob) {
    if (!blob) return;
    free(blob->data);
    blob->data = NULL;
    blob->size = 0;
}

void mbx_heif_free(void *pointer) { free(pointer); }
