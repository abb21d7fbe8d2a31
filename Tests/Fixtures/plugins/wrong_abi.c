/* A plugin built for a future ABI major: the host must refuse it by version. */
#include <mattebox/plugin.h>

static mbx_status create(const mbx_plugin_descriptor *self, const mbx_params *params, mbx_call *call, void **instance) {
    (void)self; (void)params; (void)call; *instance = 0; return MBX_OK;
}
static mbx_status process(void *instance, mbx_call *call, mbx_photo *photo) {
    (void)instance; (void)call; (void)photo; return MBX_OK;
}
static void destroy(void *instance) { (void)instance; }

static const mbx_plugin_descriptor descriptor = {
    .struct_size = sizeof(mbx_plugin_descriptor), .abi_major = MBX_ABI_MAJOR + 1, .abi_minor = 0,
    .id = "org.mattebox.tests.future", .name = "Future", .create = create, .process = process, .destroy = destroy,
};

__attribute__((visibility("default"))) const mbx_plugin_descriptor *mbx_plugin_get(uint32_t index, const mbx_host_api *host) {
    (void)host;
    return index == 0 ? &descriptor : 0;
}
