/* Descriptors a host must refuse with a reason, one per build:
 * -DNEWER_MINOR a newer minor ABI than the host's (it may use what the host lacks),
 * -DSMALL_STRUCT a struct_size smaller than this ABI's (refused before any field past it is read),
 * -DBAD_ID an id that is not reverse-DNS, -DNO_PROCESS no process callback. */
#include <mattebox/plugin.h>

static mbx_status create(const mbx_plugin_descriptor *self, const mbx_params *params, mbx_call *call, void **instance) {
    (void)self; (void)params; (void)call; *instance = 0; return MBX_OK;
}
#ifndef NO_PROCESS
static mbx_status process(void *instance, mbx_call *call, mbx_photo *photo) {
    (void)instance; (void)call; (void)photo; return MBX_OK;
}
#define PROCESS process
#else
#define PROCESS 0
#endif
static void destroy(void *instance) { (void)instance; }

#ifdef NEWER_MINOR
#define MINOR (MBX_ABI_MINOR + 1)
#else
#define MINOR MBX_ABI_MINOR
#endif
#ifdef SMALL_STRUCT
#define SIZE 16
#else
#define SIZE sizeof(mbx_plugin_descriptor)
#endif
#ifdef BAD_ID
#define ID "not an id"
#else
#define ID "org.mattebox.tests.broken"
#endif

static const mbx_plugin_descriptor descriptor = {
    .struct_size = SIZE, .abi_major = MBX_ABI_MAJOR, .abi_minor = MINOR,
    .id = ID, .name = "Broken", .create = create, .process = PROCESS, .destroy = destroy,
};

__attribute__((visibility("default"))) const mbx_plugin_descriptor *mbx_plugin_get(uint32_t index, const mbx_host_api *host) {
    (void)host;
    return index == 0 ? &descriptor : 0;
}
