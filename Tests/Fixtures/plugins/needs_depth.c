/* Requires a depth image and reports its size in the log; for role validation. */
#include <mattebox/plugin.h>
#include <stdio.h>

static const mbx_host_api *host;
static const mbx_port inputs[] = {
    {sizeof(mbx_port), MBX_ROLE_PRIMARY, 0, "a photo"},
    {sizeof(mbx_port), MBX_ROLE_DEPTH, 0, "its depth"},
};

static mbx_status create(const mbx_plugin_descriptor *self, const mbx_params *params, mbx_call *call, void **instance) {
    (void)self; (void)params; (void)call; *instance = 0; return MBX_OK;
}
static mbx_status process(void *instance, mbx_call *call, mbx_photo *photo) {
    (void)instance;
    mbx_image depth = {sizeof(mbx_image)};
    if (host->get_image(photo, MBX_ROLE_DEPTH, &depth) != MBX_OK) {
        host->set_error(call, "no depth image");
        return MBX_ERR_NOT_FOUND;
    }
    char line[64];
    snprintf(line, sizeof line, "depth is %ux%u", depth.width, depth.height);
    host->log(call, MBX_LOG_DEBUG, line);
    return MBX_OK;
}
static void destroy(void *instance) { (void)instance; }

static const mbx_plugin_descriptor descriptor = {
    .struct_size = sizeof(mbx_plugin_descriptor), .abi_major = MBX_ABI_MAJOR, .abi_minor = MBX_ABI_MINOR,
    .id = "org.mattebox.tests.needs-depth", .name = "Needs depth", .thread_safety = MBX_THREAD_CONCURRENT,
    .inputs = inputs, .input_count = 2, .create = create, .process = process, .destroy = destroy,
};

__attribute__((visibility("default"))) const mbx_plugin_descriptor *mbx_plugin_get(uint32_t index, const mbx_host_api *api) {
    host = api;
    return index == 0 ? &descriptor : 0;
}
