// The V4L2 surface Swift cannot import by itself: libv4l2's variadic calls
// wrapped as plain functions, the _IOWR ioctl numbers and v4l2_fourcc codes as
// constants, and libv4lconvert driven through a caller-supplied ioctl so the
// same conversion runs against a real device or the emulated one in tests.
#ifndef MBX_V4L2_H
#define MBX_V4L2_H

#include <linux/videodev2.h>
#include <stddef.h>
#include <sys/types.h>

static const unsigned long MBX_VIDIOC_QUERYCAP = VIDIOC_QUERYCAP;
static const unsigned long MBX_VIDIOC_ENUM_FMT = VIDIOC_ENUM_FMT;
static const unsigned long MBX_VIDIOC_ENUM_FRAMESIZES = VIDIOC_ENUM_FRAMESIZES;
static const unsigned long MBX_VIDIOC_ENUM_FRAMEINTERVALS = VIDIOC_ENUM_FRAMEINTERVALS;
static const unsigned long MBX_VIDIOC_G_FMT = VIDIOC_G_FMT;
static const unsigned long MBX_VIDIOC_S_FMT = VIDIOC_S_FMT;
static const unsigned long MBX_VIDIOC_TRY_FMT = VIDIOC_TRY_FMT;
static const unsigned long MBX_VIDIOC_G_PARM = VIDIOC_G_PARM;
static const unsigned long MBX_VIDIOC_S_PARM = VIDIOC_S_PARM;
static const unsigned long MBX_VIDIOC_REQBUFS = VIDIOC_REQBUFS;
static const unsigned long MBX_VIDIOC_QUERYBUF = VIDIOC_QUERYBUF;
static const unsigned long MBX_VIDIOC_QBUF = VIDIOC_QBUF;
static const unsigned long MBX_VIDIOC_DQBUF = VIDIOC_DQBUF;
static const unsigned long MBX_VIDIOC_STREAMON = VIDIOC_STREAMON;
static const unsigned long MBX_VIDIOC_STREAMOFF = VIDIOC_STREAMOFF;
static const unsigned long MBX_VIDIOC_QUERYCTRL = VIDIOC_QUERYCTRL;
static const unsigned long MBX_VIDIOC_G_CTRL = VIDIOC_G_CTRL;
static const unsigned long MBX_VIDIOC_S_CTRL = VIDIOC_S_CTRL;
static const unsigned long MBX_VIDIOC_QUERY_EXT_CTRL = VIDIOC_QUERY_EXT_CTRL;
static const unsigned long MBX_VIDIOC_QUERYMENU = VIDIOC_QUERYMENU;
static const unsigned long MBX_VIDIOC_G_EXT_CTRLS = VIDIOC_G_EXT_CTRLS;
static const unsigned long MBX_VIDIOC_S_EXT_CTRLS = VIDIOC_S_EXT_CTRLS;
static const unsigned long MBX_VIDIOC_G_INPUT = VIDIOC_G_INPUT;
static const unsigned long MBX_VIDIOC_ENUMINPUT = VIDIOC_ENUMINPUT;

static const unsigned int MBX_PIX_FMT_MJPEG = V4L2_PIX_FMT_MJPEG;
static const unsigned int MBX_PIX_FMT_JPEG = V4L2_PIX_FMT_JPEG;
static const unsigned int MBX_PIX_FMT_YUYV = V4L2_PIX_FMT_YUYV;
static const unsigned int MBX_PIX_FMT_RGB24 = V4L2_PIX_FMT_RGB24;

static const unsigned int MBX_CID_CAMERA_ORIENTATION = V4L2_CID_CAMERA_ORIENTATION;
static const unsigned int MBX_CID_CAMERA_SENSOR_ROTATION = V4L2_CID_CAMERA_SENSOR_ROTATION;
static const unsigned int MBX_CID_EXPOSURE_ABSOLUTE = V4L2_CID_EXPOSURE_ABSOLUTE;
static const unsigned int MBX_CID_ISO_SENSITIVITY = V4L2_CID_ISO_SENSITIVITY;
static const unsigned int MBX_CID_AUTO_WHITE_BALANCE = V4L2_CID_AUTO_WHITE_BALANCE;
static const unsigned int MBX_CTRL_FLAG_NEXT_CTRL = V4L2_CTRL_FLAG_NEXT_CTRL;
static const unsigned int MBX_CTRL_FLAG_NEXT_COMPOUND = V4L2_CTRL_FLAG_NEXT_COMPOUND;
static const unsigned int MBX_CTRL_FLAG_READ_ONLY = V4L2_CTRL_FLAG_READ_ONLY;
static const unsigned int MBX_CTRL_FLAG_INACTIVE = V4L2_CTRL_FLAG_INACTIVE;
static const unsigned int MBX_CTRL_FLAG_DISABLED = V4L2_CTRL_FLAG_DISABLED;
static const unsigned int MBX_CTRL_FLAG_WRITE_ONLY = V4L2_CTRL_FLAG_WRITE_ONLY;
static const unsigned int MBX_CTRL_FLAG_HAS_PAYLOAD = V4L2_CTRL_FLAG_HAS_PAYLOAD;
static const unsigned int MBX_CTRL_CLASS_USER = V4L2_CTRL_CLASS_USER;
static const unsigned int MBX_CTRL_CLASS_CAMERA = V4L2_CTRL_CLASS_CAMERA;
/* The controls the emulated cameras offer, with the IDs real UVC webcams use. */
static const unsigned int MBX_CID_BRIGHTNESS = V4L2_CID_BRIGHTNESS;
static const unsigned int MBX_CID_CONTRAST = V4L2_CID_CONTRAST;
static const unsigned int MBX_CID_SATURATION = V4L2_CID_SATURATION;
static const unsigned int MBX_CID_GAIN = V4L2_CID_GAIN;
static const unsigned int MBX_CID_POWER_LINE_FREQUENCY = V4L2_CID_POWER_LINE_FREQUENCY;
static const unsigned int MBX_CID_WHITE_BALANCE_TEMPERATURE = V4L2_CID_WHITE_BALANCE_TEMPERATURE;
static const unsigned int MBX_CID_EXPOSURE_AUTO = V4L2_CID_EXPOSURE_AUTO;
static const unsigned int MBX_CID_FOCUS_ABSOLUTE = V4L2_CID_FOCUS_ABSOLUTE;
static const unsigned int MBX_CID_FOCUS_AUTO = V4L2_CID_FOCUS_AUTO;
static const unsigned int MBX_EXPOSURE_MANUAL = V4L2_EXPOSURE_MANUAL;
static const unsigned int MBX_EXPOSURE_APERTURE_PRIORITY = V4L2_EXPOSURE_APERTURE_PRIORITY;
/* UVC region of interest (tap to focus and expose). Linux 6.3 added these to
 * <linux/uvcvideo.h> and <linux/videodev2.h>; bookworm's 6.1 headers lack them,
 * so the values are spelled out: V4L2_CID_CAMERA_UVC_BASE (camera class base
 * + 0x1000) + 1 and + 2, and V4L2_CTRL_TYPE_RECT. */
static const unsigned int MBX_CID_UVC_REGION_OF_INTEREST_RECT = V4L2_CID_CAMERA_CLASS_BASE + 0x1000 + 1;
static const unsigned int MBX_CID_UVC_REGION_OF_INTEREST_AUTO = V4L2_CID_CAMERA_CLASS_BASE + 0x1000 + 2;
static const unsigned int MBX_CTRL_TYPE_RECT = 0x0107;
static const unsigned int MBX_CAMERA_ORIENTATION_FRONT = V4L2_CAMERA_ORIENTATION_FRONT;
static const unsigned int MBX_CAMERA_ORIENTATION_BACK = V4L2_CAMERA_ORIENTATION_BACK;
static const unsigned int MBX_CAMERA_ORIENTATION_EXTERNAL = V4L2_CAMERA_ORIENTATION_EXTERNAL;

static const unsigned int MBX_BUF_FLAG_ERROR = V4L2_BUF_FLAG_ERROR;
static const unsigned int MBX_BUF_FLAG_MAPPED = V4L2_BUF_FLAG_MAPPED;
static const unsigned int MBX_BUF_FLAG_QUEUED = V4L2_BUF_FLAG_QUEUED;
static const unsigned int MBX_BUF_FLAG_DONE = V4L2_BUF_FLAG_DONE;
static const unsigned int MBX_BUF_FLAG_TIMESTAMP_MONOTONIC = V4L2_BUF_FLAG_TIMESTAMP_MONOTONIC;
static const unsigned int MBX_BUF_FLAG_TSTAMP_SRC_SOE = V4L2_BUF_FLAG_TSTAMP_SRC_SOE;

/// libv4l2 (production): open with conversion disabled (the caller converts
/// with its own libv4lconvert), ioctl, mmap, munmap, close.
int mbx_v4l2_open(const char *path, int flags);
int mbx_v4l2_close(int fd);
int mbx_v4l2_ioctl(int fd, unsigned long request, void *arg);
void *mbx_v4l2_mmap(int fd, size_t length, off_t offset);
int mbx_v4l2_munmap(void *address, size_t length);

/// The ioctl a converter sends its queries through: -1 with errno set on error.
typedef int (*mbx_ioctl_fn)(void *context, int fd, unsigned long request, void *arg);

typedef struct mbx_converter mbx_converter;

/// A libv4lconvert instance whose device queries go to `ioctl(context, ...)`.
mbx_converter *mbx_converter_create(int fd, void *context, mbx_ioctl_fn ioctl);
void mbx_converter_destroy(mbx_converter *converter);
/// Converts one frame of `source` (as the device delivers it) to packed RGB24
/// of the same size. Returns the bytes written or -1 (message in `error`).
int mbx_converter_to_rgb24(mbx_converter *converter, const struct v4l2_format *source,
                           const unsigned char *data, size_t size, unsigned char *rgb,
                           size_t rgb_size, char *error, size_t error_size);

#endif
