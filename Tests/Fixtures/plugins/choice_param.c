/* A plugin with one choice parameter, `mode`; built with -DWITH_GAMMA its
 * descriptor offers one value more. For the parameter contract: a value added
 * to the descriptor is accepted everywhere parameters are set, unchanged. */
#include <mattebox/plugin.h>

static const mbx_host_api *host;
static const mbx_port inputs[] = {{sizeof(mbx_port), MBX_ROLE_PRIMARY, 0, "a photo"}};
#ifdef WITH_GAMMA
static const char *const modes[] = {"alpha", "beta", "gamma"};
#else
static const char *const modes[] = {"alpha", "beta"};
#endif
static const mbx_param_spec params[] = {{
    .struct_size = sizeof(mbx_param_spec), .key = "mode", .description = "how it works", .type = MBX_PARAM_ENUM,
    .default_string = "alpha", .enum_values = modes, .enum_count = sizeof modes / sizeof modes[0],
}};

static mbx_status create(const mbx_plugin_descriptor *self, const mbx_params *given, mbx_call *call, void **instance) {
    (void)self; (void)call;
    const char *mode = 0;
    *instance = 0;
    return host->param_string(given, "mode", &mode);
}
static mbx_status process(void *instance, mbx_call *call, mbx_photo *photo) { (void)instance; (void)call; (void)photo; return MBX_OK; }
static void destroy(void *instance) { (void)instance; }

static const mbx_plugin_descriptor descriptor = {
    .struct_size = sizeof(mbx_plugin_descriptor), .abi_major = MBX_ABI_MAJOR, .abi_minor = MBX_ABI_MINOR,
    .id = "org.mattebox.tests.choosy", .name = "Choosy", .thread_safety = MBX_THREAD_CONCURRENT,
    .inputs = inputs, .input_count = 1, .params = params, .param_count = 1,
    .create = create, .process = process, .destroy = destroy,
};

__attribute__((visibility("default"))) const mbx_plugin_descriptor *mbx_plugin_get(uint32_t index, const mbx_host_api *api) {
    host = api;
    return index == 0 ? &descriptor : 0;
}
