/*
 * mbx_vips.h — the small, non-variadic slice of libvips that Mattebox uses.
 *
 * libvips' operations take NULL-terminated variadic options, which Swift
 * cannot call; these wrappers fix the options Mattebox needs and report
 * failures as a malloc'd message the caller frees with mbx_vips_free.
 */
#ifndef MBX_VIPS_H
#define MBX_VIPS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Interleaved pixels in memory. format: 1 = uint8, 2 = uint16, 3 = float. */
typedef struct mbx_pixels {
    void *data;
    size_t size;
    int width;
    int height;
    int bands;
    int format;
} mbx_pixels;

/* A blob returned by libvips (EXIF, XMP, ICC or an encoded file). */
typedef struct mbx_blob {
    void *data;
    size_t size;
} mbx_blob;

/* What decoding a file yields; free with mbx_vips_decoded_free. */
typedef struct mbx_decoded {
    mbx_pixels pixels;
    mbx_pixels alpha; /* the alpha channel on its own (same size and sample format), when the file has one */
    mbx_blob exif; /* TIFF-structured EXIF, without the "Exif\0\0" header */
    mbx_blob xmp;
    mbx_blob icc;
    char loader[64];
    /* Metadata the file holds that Mattebox does not carry: the IPTC record's size (0: none),
     * and the names of text fields libvips read (PNG and GIF comments, TIFF descriptions),
     * comma-separated, cut at the buffer's end. */
    size_t iptc_bytes;
    char other_fields[512];
} mbx_decoded;

/* Starts libvips once per process; returns 0 on success. */
/* libvips' version ("8.14.1"), for --version. */
const char *mbx_vips_version(void);

int mbx_vips_start(void);

/* Decodes the first image of a file as stored (no auto-rotation) to 8-bit
 * RGB, or 16-bit RGB when the file holds 16 bits, with alpha apart. */
int mbx_vips_decode_file(const char *path, mbx_decoded *out, char **error);
/* The same from a file's bytes already read (path names it in errors); the
 * bytes must stay alive until it returns. */
int mbx_vips_decode_buffer(const void *data, size_t size, const char *path, mbx_decoded *out, char **error);
/* Decodes a single-band image (depth, matte) keeping its sample format. */
int mbx_vips_decode_mono_file(const char *path, mbx_pixels *out, char **error);
/* The same from an encoded image in memory (a depth map or matte embedded in a
 * file); `what` names it in errors. */
int mbx_vips_decode_mono_buffer(const void *data, size_t size, const char *what, mbx_pixels *out, char **error);
void mbx_vips_decoded_free(mbx_decoded *decoded);
/* The size of the image in a file, from its header alone (no pixels are decoded). */
int mbx_vips_header_size(const char *path, int *width, int *height, char **error);

/* Geometry. op: 1 rotate 90 cw, 2 rotate 180, 3 rotate 270 cw,
 * 4 flip left-right, 5 flip top-bottom. The result is newly allocated. */
int mbx_vips_transform(const mbx_pixels *in, int op, mbx_pixels *out, char **error);
int mbx_vips_crop(const mbx_pixels *in, int left, int top, int width, int height,
                  mbx_pixels *out, char **error);
/* Scales to exactly width x height. */
int mbx_vips_resize(const mbx_pixels *in, int width, int height, mbx_pixels *out, char **error);
/* Lays out 8-bit RGB tiles `columns` to a row on white, each with its caption
 * rendered underneath (vips_text). */
int mbx_vips_contact_sheet(const mbx_pixels *tiles, const char *const *captions, int count, int columns,
                           mbx_pixels *out, char **error);
/* Encodes to "jpeg" or "png". No EXIF is written (the caller splices its
 * own); icc and xmp may be NULL. quality applies to JPEG (1..100). */
int mbx_vips_encode(const mbx_pixels *in, const char *format, int quality,
                    const mbx_blob *icc, const mbx_blob *xmp, mbx_blob *out,
                    char **error);

void mbx_vips_pixels_free(mbx_pixels *pixels);
void mbx_vips_blob_free(mbx_blob *blob);
void mbx_vips_free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif
