#include "mbx_v4l2.h"

#include <errno.h>
#include <libv4l-plugin.h>
#include <libv4l2.h>
#include <libv4lconvert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int mbx_v4l2_open(const char *path, int flags) {
    int fd = v4l2_open(path, flags);
    if (fd < 0) return -1;
    // Keep the camera's own formats: frames are converted by the caller's
    // converter, and MJPEG stays compressed until a frame is actually used.
    int wrapped = v4l2_fd_open(fd, V4L2_DISABLE_CONVERSION);
    if (wrapped < 0) {
        int saved = errno;
        v4l2_close(fd);
        errno = saved;
        return -1;
    }
    return wrapped;
}

int mbx_v4l2_close(int fd) { return v4l2_close(fd); }

int mbx_v4l2_ioctl(int fd, unsigned long request, void *arg) {
    int result;
    do {
        result = v4l2_ioctl(fd, request, arg);
    } while (result < 0 && errno == EINTR);
    return result;
}

void *mbx_v4l2_mmap(int fd, size_t length, off_t offset) {
    void *address = v4l2_mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset);
    return address == MAP_FAILED ? NULL : address;
}

int mbx_v4l2_munmap(void *address, size_t length) { return v4l2_munmap(address, length); }

struct mbx_converter {
    struct v4lconvert_data *data;
    void *context;
    mbx_ioctl_fn ioctl;
    struct libv4l_dev_ops ops;
};

static int forward_ioctl(void *priv, int fd, unsigned long request, void *arg) {
    mbx_converter *converter = priv;
    return converter->ioctl(converter->context, fd, request, arg);
}

static ssize_t refuse_read(void *priv, int fd, void *buffer, size_t n) {
    (void)priv; (void)fd; (void)buffer; (void)n;
    errno = EINVAL;
    return -1;
}

static ssize_t refuse_write(void *priv, int fd, const void *buffer, size_t n) {
    (void)priv; (void)fd; (void)buffer; (void)n;
    errno = EINVAL;
    return -1;
}

mbx_converter *mbx_converter_create(int fd, void *context, mbx_ioctl_fn ioctl) {
    mbx_converter *converter = calloc(1, sizeof *converter);
    if (!converter) return NULL;
    converter->context = context;
    converter->ioctl = ioctl;
    converter->ops.ioctl = forward_ioctl;
    converter->ops.read = refuse_read;
    converter->ops.write = refuse_write;
    converter->data = v4lconvert_create_with_dev_ops(fd, converter, &converter->ops);
    if (!converter->data) {
        free(converter);
        return NULL;
    }
    return converter;
}

void mbx_converter_destroy(mbx_converter *converter) {
    if (!converter) return;
    v4lconvert_destroy(converter->data);
    free(converter);
}

int mbx_converter_to_rgb24(mbx_converter *converter, const struct v4l2_format *source,
                           const unsigned char *data, size_t size, unsigned char *rgb,
                           size_t rgb_size, char *error, size_t error_size) {
    struct v4l2_format src = *source;
    struct v4l2_format dst = *source;
    dst.fmt.pix.pixelformat = V4L2_PIX_FMT_RGB24;
    dst.fmt.pix.bytesperline = dst.fmt.pix.width * 3;
    dst.fmt.pix.sizeimage = dst.fmt.pix.bytesperline * dst.fmt.pix.height;
    dst.fmt.pix.field = V4L2_FIELD_NONE;
    int written = v4lconvert_convert(converter->data, &src, &dst, (unsigned char *)data, (int)size,
                                     rgb, (int)rgb_size);
    if (written < 0) {
        snprintf(error, error_size, "%s", v4lconvert_get_error_message(converter->data));
        return -1;
    }
    return written;
}
