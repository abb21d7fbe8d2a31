/* Image files through libvips: see mbx_image_file.h. */
#include "mbx_image_file.h"
#include "mbx_vips.h"

#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <vips/vips.h>

static int fail(mbx_cv_error *error, const char *path, const char *what) {
    if (error) snprintf(error->message, sizeof error->message, "%s: %s", path ? path : "(no path)", what);
    return -1;
}

/* libvips' first line of error, for the message; the buffer is cleared. */
static int fail_vips(mbx_cv_error *error, const char *path, const char *what) {
    char reason[256];
    snprintf(reason, sizeof reason, "%s", vips_error_buffer());
    vips_error_clear();
    char *newline = strchr(reason, '\n');
    if (newline) *newline = '\0';
    char message[400];
    snprintf(message, sizeof message, "%s (%s)", what, reason[0] ? reason : "libvips gave no reason");
    return fail(error, path, message);
}

/* Replaces *image by what `step` made from it; -1 when the step failed. */
static int step(VipsImage **image, int status, VipsImage *next) {
    g_object_unref(*image);
    *image = next;
    return status ? -1 : 0;
}

int mbx_image_file_read_rgb8(const char *path, mbx_cv_image *image, mbx_cv_error *error) {
    if (!path || !image) return fail(error, path, "missing argument");
    memset(image, 0, sizeof *image);
    /* A FIFO or a device would block the render, or never end. */
    struct stat status;
    if (stat(path, &status) != 0) return fail(error, path, strerror(errno));
    if (!S_ISREG(status.st_mode)) return fail(error, path, "not a regular file");
    /* Started as the host starts it (normally already): only the loaders it allows. */
    if (mbx_vips_start()) return fail_vips(error, path, "libvips could not start");

    VipsImage *in = vips_image_new_from_file(path, "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    if (!in) return fail_vips(error, path, "not an image libvips can read");
    VipsImage *next = NULL;
    /* Upright by its EXIF orientation; transparency over black; sRGB by its own profile when it has one. */
    if (step(&in, vips_autorot(in, &next, NULL), next)) return fail_vips(error, path, "could not be turned upright");
    if (vips_image_hasalpha(in) && step(&in, vips_flatten(in, &next, NULL), next)) return fail_vips(error, path, "could not be flattened");
    int converted = vips_image_get_typeof(in, VIPS_META_ICC_NAME)
        ? vips_icc_transform(in, &next, "srgb", "embedded", TRUE, "depth", 8, NULL)
        : vips_colourspace(in, &next, VIPS_INTERPRETATION_sRGB, NULL);
    if (step(&in, converted, next)) return fail_vips(error, path, "could not be brought to sRGB");
    if (vips_image_get_format(in) != VIPS_FORMAT_UCHAR && step(&in, vips_cast(in, &next, VIPS_FORMAT_UCHAR, NULL), next)) {
        return fail_vips(error, path, "could not be brought to 8 bits");
    }
    if (vips_image_get_bands(in) != 3) {
        g_object_unref(in);
        return fail(error, path, "not a colour image after conversion");
    }
    size_t size = 0;
    void *pixels = vips_image_write_to_memory(in, &size);
    const int width = vips_image_get_width(in), height = vips_image_get_height(in);
    g_object_unref(in);
    if (!pixels) return fail_vips(error, path, "could not be decoded");
    *image = (mbx_cv_image){pixels, width, height, 3, MBX_CV_U8, (size_t)width * 3};
    return 0;
}

void mbx_image_file_free(mbx_cv_image *image) {
    if (!image) return;
    g_free(image->data);
    memset(image, 0, sizeof *image);
}
