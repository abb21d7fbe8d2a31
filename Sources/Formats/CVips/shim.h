/* System libvips, as found by pkg-config (Debian: libvips-dev). */
#include <vips/vips.h>
