/*
 * mbx_heif.h — the slice of libheif Mattebox uses: coding of one image (HEVC
 * or AV1) and decoding of one image item. Mattebox writes and reads the HEIF
 * container itself (libheif 1.15 cannot write auxiliary images); libheif does
 * the codec work on small single-item files that Mattebox assembles.
 *
 * Failures return non-zero and a malloc'd message the caller frees with
 * mbx_heif_free.
 */
#ifndef MBX_HEIF_H
#define MBX_HEIF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mbx_heif_blob {
    void *data;
    size_t size;
} mbx_heif_blob;

/* Interleaved pixels: 1 (grey) or 3 (RGB) channels; 1 or 2 bytes a sample
 * (2 = 16-bit little-endian host order, full 0..65535 range). */
typedef struct mbx_heif_pixels {
    void *data;
    int width;
    int height;
    int channels;
    int bytes_per_sample;
} mbx_heif_pixels;

enum { MBX_HEIF_HEVC = 0, MBX_HEIF_AV1 = 1 };

typedef struct mbx_heif_encode_settings {
    int compression;      /* MBX_HEIF_HEVC (x265) or MBX_HEIF_AV1 (aom) */
    int quality;          /* 1..100 */
    const char *preset;   /* HEVC: x265 preset ("ultrafast" .. "placebo"), or NULL */
    int speed;            /* AV1: aom speed 0..9, or -1 for libheif's default */
    int bit_depth;        /* 8, 10 or 12; 16-bit input is scaled down to it */
    int thumbnail_bbox;   /* > 0: also encode a thumbnail fitting this square */
} mbx_heif_encode_settings;

/* Encodes the pixels into a small HEIF file in memory (one hvc1 or av01
 * item), and when asked a thumbnail into a second one (empty when the image
 * already fits the box). Grey input becomes 4:0:0 monochrome. */
int mbx_heif_encode(const mbx_heif_pixels *in, const mbx_heif_encode_settings *settings,
                    mbx_heif_blob *out_file, mbx_heif_blob *out_thumbnail, char **error);

/* Decodes the primary item of a HEIF file in memory, without applying any
 * transform the file does not carry. channels: 1 or 3; bits > 8 give 16-bit. */
int mbx_heif_decode(const void *file, size_t size, int channels, int bits,
                    mbx_heif_pixels *out, char **error);

/* What libheif itself sees in a file: one line per fact, for cross-checks.
 *   primary <w> <h>
 *   thumbnail <w> <h>
 *   aux <id> <type> <w> <h>
 *   depth-representation <type> <d_min|-> <d_max|-> <z_near|-> <z_far|->
 *   metadata <type> <bytes>  */
int mbx_heif_describe(const void *file, size_t size, char **out_text, char **error);

void mbx_heif_pixels_free(mbx_heif_pixels *pixels);
void mbx_heif_blob_free(mbx_heif_blob *blob);
void mbx_heif_free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif
