/* Image files read by OpenCV's codecs, for the portrait effect's replacement
 * background. A library of its own so that only the portrait effect loads
 * opencv_imgcodecs: it pulls in GDAL, GDCM and a hundred more libraries, which
 * cost every process that loads them 27 MiB of resident memory and 80 ms
 * (the matte plugins, their batch workers and the inference process). */
#ifndef MBX_IMAGE_FILE_H
#define MBX_IMAGE_FILE_H

#include "mbx_vision.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The image file at `path` (JPEG, PNG, TIFF, WebP, ...) as 8-bit RGB, turned
 * upright by its EXIF orientation. On success `image` holds pixels the caller
 * releases with mbx_image_file_free; 0 success, -1 with a message naming the
 * file. */
int mbx_image_file_read_rgb8(const char *path, mbx_cv_image *image, mbx_cv_error *error);
void mbx_image_file_free(mbx_cv_image *image);

#ifdef __cplusplus
}
#endif

#endif
