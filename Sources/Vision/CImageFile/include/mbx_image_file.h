/* Image files read by libvips, for the portrait effect's replacement
 * background. libvips is already loaded in every process that runs the
 * plugin (the host decodes photos with it); OpenCV's codecs would bring
 * GDAL, GDCM and a hundred more libraries: 27 MiB of resident memory and
 * about 100 ms more for each process that loads the plugin. */
#ifndef MBX_IMAGE_FILE_H
#define MBX_IMAGE_FILE_H

#include "mbx_vision.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The image file at `path` (JPEG, PNG, TIFF, WebP, HEIF, ...) as 8-bit sRGB,
 * turned upright by its EXIF orientation, converted by its own ICC profile,
 * transparency over black. On success `image` holds pixels the caller
 * releases with mbx_image_file_free; 0 success, -1 with a message naming the
 * file (a FIFO or device is refused, never read). */
int mbx_image_file_read_rgb8(const char *path, mbx_cv_image *image, mbx_cv_error *error);
void mbx_image_file_free(mbx_cv_image *image);

#ifdef __cplusplus
}
#endif

#endif
