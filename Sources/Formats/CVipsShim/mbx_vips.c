/* Non-variadic wrappers over libvips; see include/mbx_vips.h. */
#include "mbx_vips.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vips/vips.h>

static char *take_vips_error(const char *context) {
    const char *detail = vips_error_buffer();
    if (strstr(detail, context)) {
        /* libvips already named the file. */
        context = "";
    }
    size_t length = strlen(context) + strlen(detail) + 4;
    char *message = malloc(length);
    if (message) {
        snprintf(message, length, "%s%s%s", context, *context ? ": " : "", detail);
        /* libvips ends messages with a newline; drop trailing ones. */
        size_t end = strlen(message);
        while (end > 0 && (message[end - 1] == '\n' || message[end - 1] == ' ')) {
            message[--end] = '\0';
        }
    }
    vips_error_clear();
    return message;
}

static int fail(char **error, const char *context) {
    if (error) {
        *error = take_vips_error(context);
    } else {
        vips_error_clear();
    }
    return -1;
}

static VipsBandFormat band_format(int format) {
    switch (format) {
    case 2: return VIPS_FORMAT_USHORT;
    case 3: return VIPS_FORMAT_FLOAT;
    default: return VIPS_FORMAT_UCHAR;
    }
}

static int sample_format(VipsBandFormat format) {
    switch (format) {
    case VIPS_FORMAT_UCHAR: return 1;
    case VIPS_FORMAT_USHORT: return 2;
    case VIPS_FORMAT_FLOAT: return 3;
    default: return 0;
    }
}

static VipsImage *wrap(const mbx_pixels *in) {
    return vips_image_new_from_memory(in->data, in->size, in->width, in->height,
                                      in->bands, band_format(in->format));
}

/* Renders `image` into a newly allocated interleaved buffer and unrefs it. */
static int render(VipsImage *image, mbx_pixels *out, char **error, const char *context) {
    size_t size = 0;
    void *data = vips_image_write_to_memory(image, &size);
    if (!data) {
        g_object_unref(image);
        return fail(error, context);
    }
    out->data = data;
    out->size = size;
    out->width = vips_image_get_width(image);
    out->height = vips_image_get_height(image);
    out->bands = vips_image_get_bands(image);
    out->format = sample_format(vips_image_get_format(image));
    g_object_unref(image);
    return 0;
}

static void copy_blob(VipsImage *image, const char *name, mbx_blob *blob) {
    const void *data = NULL;
    size_t size = 0;
    blob->data = NULL;
    blob->size = 0;
    if (vips_image_get_typeof(image, name) && !vips_image_get_blob(image, name, &data, &size) &&
        size > 0) {
        blob->data = g_memdup2(data, size);
        blob->size = blob->data ? size : 0;
    }
}

const char *mbx_vips_version(void) { return vips_version_string(); }

/* libvips reports a damaged file twice: as the error Mattebox names the file in,
 * and as a GLib warning ("VIPS-WARNING **: error in tile 0 x 8") printed raw to
 * stderr. The error is enough; the warnings are shown only with MATTEBOX_LOG=debug. */
static void vips_warning(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)level;
    (void)data;
    const char *log = getenv("MATTEBOX_LOG");
    if (log && strcmp(log, "debug") == 0) fprintf(stderr, "mattebox: debug: %s: %s\n", domain ? domain : "libvips", message);
}

int mbx_vips_start(void) {
    static int started = 0;
    static GMutex lock;
    int status = 0;
    g_mutex_lock(&lock);
    if (!started) {
        g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO, vips_warning, NULL);
        status = VIPS_INIT("mattebox");
        started = status == 0;
        /* Every photo is decoded once: caching operations only holds on to
         * 12 MP buffers (up to 100 MB per process) that no later call reuses. */
        if (started) vips_cache_set_max(0);
        /* Only the loaders for the formats Mattebox lists: a hostile file must
         * never reach ImageMagick's (or any other untrusted) parsers. */
        if (started) {
            vips_block_untrusted_set(TRUE);
            vips_operation_block_set("VipsForeignLoadMagick", TRUE);
        }
    }
    g_mutex_unlock(&lock);
    return status;
}

/* Applies `step` to *image, replacing it; returns -1 with the vips error kept. */
#define STEP(call)                                                                   \
    do {                                                                             \
        VipsImage *next = NULL;                                                      \
        if (call) {                                                                  \
            g_object_unref(image);                                                   \
            return fail(error, path);                                                \
        }                                                                            \
        g_object_unref(image);                                                       \
        image = next;                                                                \
    } while (0)

/* The common part of decoding a file or a buffer: takes the opened image. */
static int decode_image(VipsImage *image, const char *path, mbx_decoded *out, char **error) {
    const char *loader = NULL;
    if (!vips_image_get_string(image, VIPS_META_LOADER, &loader) && loader) {
        snprintf(out->loader, sizeof(out->loader), "%s", loader);
    }
    copy_blob(image, VIPS_META_EXIF_NAME, &out->exif);
    copy_blob(image, VIPS_META_XMP_NAME, &out->xmp);
    copy_blob(image, VIPS_META_ICC_NAME, &out->icc);
    if (vips_image_get_typeof(image, VIPS_META_IPTC_NAME)) {
        const void *iptc = NULL;
        size_t iptc_size = 0;
        if (!vips_image_get_blob(image, VIPS_META_IPTC_NAME, &iptc, &iptc_size)) out->iptc_bytes = iptc_size;
    }
    gchar **fields = vips_image_get_fields(image);
    for (int i = 0; fields && fields[i]; i++) {
        const char *name = fields[i];
        if (strncmp(name, "png-comment-", 12) == 0 || strcmp(name, "gif-comment") == 0 ||
            strcmp(name, "image-description") == 0 || strncmp(name, "tiff-", 5) == 0) {
            if (strncmp(name, "tiff-", 5) == 0 && strcmp(name, "tiff-photometric-interpretation") == 0) continue;
            if (strncmp(name, "tiff-", 5) == 0 && strcmp(name, "tiff-compression") == 0) continue;
            size_t used = strlen(out->other_fields);
            snprintf(out->other_fields + used, sizeof(out->other_fields) - used, "%s%s", used ? ", " : "", name);
        }
    }
    g_strfreev(fields);

    gboolean sixteen = vips_image_get_format(image) == VIPS_FORMAT_USHORT;
    VipsBandFormat wanted = sixteen ? VIPS_FORMAT_USHORT : VIPS_FORMAT_UCHAR;
    if (vips_image_hasalpha(image)) {
        /* Alpha is kept apart, as HEIF keeps it (an auxiliary image), and the
         * colour stays straight, not flattened, so RGBA comes back whole. The
         * image is read into memory once: it is rendered twice. */
        VipsImage *memory = vips_image_copy_memory(image);
        g_object_unref(image);
        if (!memory) return fail(error, path);
        image = memory;
        const int bands = vips_image_get_bands(image);
        VipsImage *alpha = NULL;
        if (vips_extract_band(image, &alpha, bands - 1, NULL)) {
            g_object_unref(image);
            return fail(error, path);
        }
        if (vips_image_get_format(alpha) != wanted) {
            VipsImage *cast = NULL;
            int failed = vips_cast(alpha, &cast, wanted, NULL);
            g_object_unref(alpha);
            if (failed) {
                g_object_unref(image);
                return fail(error, path);
            }
            alpha = cast;
        }
        if (render(alpha, &out->alpha, error, path)) {
            g_object_unref(image);
            mbx_vips_decoded_free(out);
            return -1;
        }
        STEP(vips_extract_band(image, &next, 0, "n", bands - 1, NULL));
    }
    VipsInterpretation target = sixteen ? VIPS_INTERPRETATION_RGB16 : VIPS_INTERPRETATION_sRGB;
    VipsInterpretation current = vips_image_get_interpretation(image);
    if (current != target || vips_image_get_bands(image) != 3) {
        STEP(vips_colourspace(image, &next, target, NULL));
    }
    if (vips_image_get_format(image) != wanted) {
        STEP(vips_cast(image, &next, wanted, NULL));
    }
    if (render(image, &out->pixels, error, path)) {
        mbx_vips_decoded_free(out);
        return -1;
    }
    return 0;
}

int mbx_vips_decode_file(const char *path, mbx_decoded *out, char **error) {
    memset(out, 0, sizeof(*out));
    VipsImage *image = vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL,
                                                "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    if (!image) {
        return fail(error, path);
    }
    return decode_image(image, path, out, error);
}

int mbx_vips_decode_buffer(const void *data, size_t size, const char *path, mbx_decoded *out, char **error) {
    memset(out, 0, sizeof(*out));
    VipsImage *image = vips_image_new_from_buffer(data, size, "", "access", VIPS_ACCESS_SEQUENTIAL,
                                                  "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    if (!image) {
        return fail(error, path);
    }
    return decode_image(image, path, out, error);
}

static int decode_mono(VipsImage *image, const char *path, mbx_pixels *out, char **error);

int mbx_vips_header_size(const char *path, int *width, int *height, char **error) {
    VipsImage *image = vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!image) {
        return fail(error, path);
    }
    *width = vips_image_get_width(image);
    *height = vips_image_get_height(image);
    g_object_unref(image);
    return 0;
}

int mbx_vips_decode_mono_file(const char *path, mbx_pixels *out, char **error) {
    memset(out, 0, sizeof(*out));
    VipsImage *image = vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL,
                                                "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    if (!image) {
        return fail(error, path);
    }
    return decode_mono(image, path, out, error);
}

int mbx_vips_decode_mono_buffer(const void *data, size_t size, const char *what, mbx_pixels *out, char **error) {
    memset(out, 0, sizeof(*out));
    VipsImage *image = vips_image_new_from_buffer(data, size, "", "access", VIPS_ACCESS_SEQUENTIAL,
                                                  "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    if (!image) {
        return fail(error, what);
    }
    return decode_mono(image, what, out, error);
}

/* One channel of `image` (adopted) as 8-bit, 16-bit or float pixels. */
static int decode_mono(VipsImage *image, const char *path, mbx_pixels *out, char **error) {
    if (vips_image_get_bands(image) > 1) {
        STEP(vips_extract_band(image, &next, 0, NULL));
    }
    VipsBandFormat format = vips_image_get_format(image);
    if (format != VIPS_FORMAT_UCHAR && format != VIPS_FORMAT_USHORT && format != VIPS_FORMAT_FLOAT) {
        STEP(vips_cast(image, &next, VIPS_FORMAT_FLOAT, NULL));
    }
    return render(image, out, error, path);
}

void mbx_vips_decoded_free(mbx_decoded *decoded) {
    mbx_vips_pixels_free(&decoded->pixels);
    mbx_vips_pixels_free(&decoded->alpha);
    mbx_vips_blob_free(&decoded->exif);
    mbx_vips_blob_free(&decoded->xmp);
    mbx_vips_blob_free(&decoded->icc);
}

int mbx_vips_transform(const mbx_pixels *in, int op, mbx_pixels *out, char **error) {
    memset(out, 0, sizeof(*out));
    VipsImage *source = wrap(in);
    if (!source) {
        return fail(error, "transform");
    }
    VipsImage *result = NULL;
    int status;
    switch (op) {
    case 1: status = vips_rot(source, &result, VIPS_ANGLE_D90, NULL); break;
    case 2: status = vips_rot(source, &result, VIPS_ANGLE_D180, NULL); break;
    case 3: status = vips_rot(source, &result, VIPS_ANGLE_D270, NULL); break;
    case 4: status = vips_flip(source, &result, VIPS_DIRECTION_HORIZONTAL, NULL); break;
    case 5: status = vips_flip(source, &result, VIPS_DIRECTION_VERTICAL, NULL); break;
    default:
        g_object_unref(source);
        if (error) {
            *error = strdup("transform: unknown operation");
        }
        return -1;
    }
    g_object_unref(source);
    if (status) {
        return fail(error, "transform");
    }
    return render(result, out, error, "transform");
}

int mbx_vips_crop(const mbx_pixels *in, int left, int top, int width, int height,
                  mbx_pixels *out, char **error) {
    memset(out, 0, sizeof(*out));
    VipsImage *source = wrap(in);
    if (!source) {
        return fail(error, "crop");
    }
    VipsImage *result = NULL;
    int status = vips_extract_area(source, &result, left, top, width, height, NULL);
    g_object_unref(source);
    if (status) {
        return fail(error, "crop");
    }
    return render(result, out, error, "crop");
}

int mbx_vips_encode(const mbx_pixels *in, const char *format, int quality,
                    const mbx_blob *icc, const mbx_blob *xmp, mbx_blob *out,
                    char **error) {
    memset(out, 0, sizeof(*out));
    int jpeg = strcmp(format, "jpeg") == 0;
    if (!jpeg && strcmp(format, "png") != 0) {
        if (error) {
            *error = strdup("encode: format must be jpeg or png");
        }
        return -1;
    }
    VipsImage *image = wrap(in);
    if (!image) {
        return fail(error, "encode");
    }
    if (jpeg && in->format != 1) {
        VipsImage *eight = NULL;
        int status = in->format == 2 ? vips_cast(image, &eight, VIPS_FORMAT_UCHAR, "shift", TRUE, NULL)
                                     : vips_cast(image, &eight, VIPS_FORMAT_UCHAR, NULL);
        g_object_unref(image);
        if (status) {
            return fail(error, "encode");
        }
        image = eight;
    }
    /* A private copy (so metadata set here never touches a shared header)
     * that says what the samples are, so 16-bit PNGs stay 16-bit. */
    int sixteen = !jpeg && in->format == 2;
    VipsInterpretation interpretation = in->bands >= 3 ? (sixteen ? VIPS_INTERPRETATION_RGB16 : VIPS_INTERPRETATION_sRGB)
                                                       : (sixteen ? VIPS_INTERPRETATION_GREY16 : VIPS_INTERPRETATION_B_W);
    if (!jpeg && in->format == 3) {
        g_object_unref(image);
        if (error) {
            *error = strdup("PNG encode: float images cannot be stored as PNG; convert them to 8 or 16 bits");
        }
        return -1;
    }
    VipsImage *copy = NULL;
    if (vips_copy(image, &copy, "interpretation", interpretation, NULL)) {
        g_object_unref(image);
        return fail(error, "encode");
    }
    g_object_unref(image);
    image = copy;
    if (icc && icc->data && icc->size) {
        vips_image_set_blob_copy(image, VIPS_META_ICC_NAME, icc->data, icc->size);
    }
    if (xmp && xmp->data && xmp->size) {
        vips_image_set_blob_copy(image, VIPS_META_XMP_NAME, xmp->data, xmp->size);
    }
    int status = jpeg ? vips_jpegsave_buffer(image, &out->data, &out->size, "Q", quality,
                                             "optimize_coding", TRUE, NULL)
                      : vips_pngsave_buffer(image, &out->data, &out->size, "compression", 6, "bitdepth",
                                            sixteen ? 16 : 8, NULL);
    g_object_unref(image);
    if (status) {
        return fail(error, jpeg ? "JPEG encode" : "PNG encode");
    }
    return 0;
}

void mbx_vips_pixels_free(mbx_pixels *pixels) {
    if (pixels->data) {
        g_free(pixels->data);
    }
    pixels->data = NULL;
    pixels->size = 0;
}

void mbx_vips_blob_free(mbx_blob *blob) {
    if (blob->data) {
        g_free(blob->data);
    }
    blob->data = NULL;
    blob->size = 0;
}

void mbx_vips_free(void *pointer) {
    free(pointer);
}

int mbx_vips_resize(const mbx_pixels *in, int width, int height, mbx_pixels *out, char **error) {
    memset(out, 0, sizeof(*out));
    if (width <= 0 || height <= 0) {
        *error = strdup("resize: the target size must be positive");
        return 1;
    }
    VipsImage *source = wrap(in);
    if (!source) {
        return fail(error, "resize");
    }
    VipsImage *result = NULL;
    int status = vips_resize(source, &result, (double)width / in->width, "vscale",
                             (double)height / in->height, NULL);
    g_object_unref(source);
    if (status) {
        return fail(error, "resize");
    }
    /* Rounding in vips_resize can leave a pixel over or under; settle it. */
    VipsImage *exact = NULL;
    status = vips_embed(result, &exact, 0, 0, width, height, "extend", VIPS_EXTEND_COPY, NULL);
    g_object_unref(result);
    if (status) {
        return fail(error, "resize");
    }
    return render(exact, out, error, "resize");
}

/* A caption strip: dark text on white, as wide as the tile it labels. */
static VipsImage *caption(const char *text, int width) {
    VipsImage *mask = NULL;
    if (vips_text(&mask, text, "width", width - 8, "dpi", 96, "font", "sans 9", NULL)) {
        return NULL;
    }
    VipsImage *ink = NULL, *padded = NULL, *rgb = NULL;
    /* mask is 0..255 coverage; white background means 255 - coverage. */
    int failed = vips_linear1(mask, &ink, -1.0, 255.0, "uchar", TRUE, NULL);
    g_object_unref(mask);
    if (failed) return NULL;
    double white[] = {255.0};
    failed = vips_embed(ink, &padded, 4, 4, width, ink->Ysize + 8, "extend", VIPS_EXTEND_BACKGROUND,
                        "background", vips_array_double_new(white, 1), NULL);
    g_object_unref(ink);
    if (failed) return NULL;
    VipsImage *bands[3] = {padded, padded, padded};
    failed = vips_bandjoin(bands, &rgb, 3, NULL);
    g_object_unref(padded);
    return failed ? NULL : rgb;
}

int mbx_vips_contact_sheet(const mbx_pixels *tiles, const char *const *captions, int count, int columns,
                           mbx_pixels *out, char **error) {
    memset(out, 0, sizeof(*out));
    if (count <= 0 || columns <= 0) {
        *error = strdup("contact sheet: nothing to lay out");
        return 1;
    }
    VipsImage **cells = g_new0(VipsImage *, count);
    int status = 0;
    for (int i = 0; i < count && !status; i++) {
        VipsImage *tile = wrap(&tiles[i]);
        VipsImage *label = tile ? caption(captions[i], tiles[i].width) : NULL;
        if (!tile || !label || vips_join(tile, label, &cells[i], VIPS_DIRECTION_VERTICAL, NULL)) {
            status = 1;
        }
        if (tile) g_object_unref(tile);
        if (label) g_object_unref(label);
    }
    VipsImage *sheet = NULL;
    if (!status) {
        double white[] = {255.0, 255.0, 255.0};
        status = vips_arrayjoin(cells, &sheet, count, "across", columns, "shim", 12, "background",
                                vips_array_double_new(white, 3), NULL);
    }
    for (int i = 0; i < count; i++) {
        if (cells[i]) g_object_unref(cells[i]);
    }
    g_free(cells);
    if (status) {
        return fail(error, "contact sheet");
    }
    VipsImage *framed = NULL;
    double white[] = {255.0, 255.0, 255.0};
    status = vips_embed(sheet, &framed, 12, 12, sheet->Xsize + 24, sheet->Ysize + 24, "extend",
                        VIPS_EXTEND_BACKGROUND, "background", vips_array_double_new(white, 3), NULL);
    g_object_unref(sheet);
    if (status) {
        return fail(error, "contact sheet");
    }
    return render(framed, out, error, "contact sheet");
}
