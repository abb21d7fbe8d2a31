/*
 * Pins the layout of the public ABI structs on 64-bit Linux, the way
 * GStreamer's gstabi test does: a change that moves a field of
 * mattebox/plugin.h breaks the build instead of silently breaking every
 * plugin already compiled. Append-only growth changes sizes; update the
 * numbers together with MBX_ABI_MINOR.
 */
#include <stddef.h>
#include "mattebox/plugin.h"

#if UINTPTR_MAX == 0xFFFFFFFFFFFFFFFFu
_Static_assert(sizeof(mbx_image) == 32, "mbx_image layout changed");
_Static_assert(offsetof(mbx_image, data) == 24, "mbx_image layout changed");
_Static_assert(sizeof(mbx_param_spec) == 88, "mbx_param_spec layout changed");
_Static_assert(offsetof(mbx_param_spec, enum_values) == 64, "mbx_param_spec layout changed");
_Static_assert(sizeof(mbx_port) == 32, "mbx_port layout changed");
_Static_assert(offsetof(mbx_host_api, log) == 16, "mbx_host_api layout changed");
_Static_assert(sizeof(mbx_host_api) == 16 + 18 * 8, "mbx_host_api layout changed");
_Static_assert(offsetof(mbx_plugin_descriptor, id) == 8, "descriptor layout changed");
_Static_assert(offsetof(mbx_plugin_descriptor, create) == 112, "descriptor layout changed");
_Static_assert(sizeof(mbx_plugin_descriptor) == 136, "descriptor layout changed");
#endif
