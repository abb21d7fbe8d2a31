/*
 * Misbehaves on photos of one particular width, to check that a batch survives
 * its plugins: a photo `crash-width` px wide crashes the process (SIGSEGV), one
 * `hang-width` px wide never returns. Every other photo passes unchanged.
 */
#include <mattebox/plugin.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static const mbx_host_api *host;
static const mbx_port inputs[] = {{sizeof(mbx_port), MBX_ROLE_PRIMARY, 0, "a photo"}};
static const mbx_param_spec params[] = {
    {sizeof(mbx_param_spec), "crash-width", "photos this wide crash the process", MBX_PARAM_INT, 0, 0, 0, 100000, 0, 0, "px"},
    {sizeof(mbx_param_spec), "hang-width", "photos this wide never finish", MBX_PARAM_INT, 0, 0, 0, 100000, 0, 0, "px"},
};

typedef struct { int64_t crash, hang; } widths;

static mbx_status create(const mbx_plugin_descriptor *self, const mbx_params *values, mbx_call *call, void **instance) {
    (void)self;
    widths *w = calloc(1, sizeof(widths));
    if (!w || host->param_int(values, "crash-width", &w->crash) != MBX_OK ||
        host->param_int(values, "hang-width", &w->hang) != MBX_OK) {
        free(w);
        host->set_error(call, "parameters missing");
        return MBX_ERR_INVALID_ARGUMENT;
    }
    *instance = w;
    return MBX_OK;
}

static mbx_status process(void *instance, mbx_call *call, mbx_photo *photo) {
    (void)call;
    const widths *w = instance;
    mbx_image image = {sizeof(mbx_image)};
    if (host->get_image(photo, MBX_ROLE_PRIMARY, &image) != MBX_OK) return MBX_ERR_NOT_FOUND;
    if ((int64_t)image.width == w->crash) *(volatile int *)0 = 1; /* a real SIGSEGV */
    if ((int64_t)image.width == w->hang) for (;;) pause();
    return MBX_OK;
}

static void destroy(void *instance) { free(instance); }

static const mbx_plugin_descriptor descriptor = {
    .struct_size = sizeof(mbx_plugin_descriptor), .abi_major = MBX_ABI_MAJOR, .abi_minor = MBX_ABI_MINOR,
    .id = "org.mattebox.tests.misbehave", .name = "Misbehave on one width", .description = "test fixture",
    .vendor = "tests", .license = "MIT", .version_major = 1, .thread_safety = MBX_THREAD_INSTANCE,
    .inputs = inputs, .input_count = 1, .params = params, .param_count = 2,
    .create = create, .process = process, .destroy = destroy,
};

__attribute__((visibility("default"))) const mbx_plugin_descriptor *mbx_plugin_get(uint32_t index, const mbx_host_api *api) {
    host = api;
    return index == 0 ? &descriptor : 0;
}
