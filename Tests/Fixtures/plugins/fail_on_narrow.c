/*
 * Fails photos narrower than `min-width` with a message, succeeds on the rest
 * (and marks them by writing a 4x2 "org.mattebox.tests.seen" auxiliary image),
 * to check that one photo's failure does not stop the next.
 */
#include <mattebox/plugin.h>
#include <stdio.h>
#include <stdlib.h>

static const mbx_host_api *host;
static const mbx_port inputs[] = {{sizeof(mbx_port), MBX_ROLE_PRIMARY, 0, "a photo"}};
static const mbx_port outputs[] = {{sizeof(mbx_port), "org.mattebox.tests.seen", 0, "a marker"}};
static const mbx_param_spec params[] = {
    {sizeof(mbx_param_spec), "min-width", "narrower photos fail", MBX_PARAM_INT, 100, 0, 1, 100000, 0, 0, "px"},
};

static mbx_status create(const mbx_plugin_descriptor *self, const mbx_params *values, mbx_call *call, void **instance) {
    (void)self;
    int64_t *minimum = malloc(sizeof(int64_t));
    if (!minimum || host->param_int(values, "min-width", minimum) != MBX_OK) {
        free(minimum);
        host->set_error(call, "min-width missing");
        return MBX_ERR_INVALID_ARGUMENT;
    }
    *instance = minimum;
    return MBX_OK;
}

static mbx_status process(void *instance, mbx_call *call, mbx_photo *photo) {
    mbx_image image = {sizeof(mbx_image)};
    if (host->get_image(photo, MBX_ROLE_PRIMARY, &image) != MBX_OK) return MBX_ERR_NOT_FOUND;
    if ((int64_t)image.width < *(int64_t *)instance) {
        char message[128];
        snprintf(message, sizeof message, "photo is %u px wide, narrower than %lld", image.width,
                 (long long)*(int64_t *)instance);
        host->set_error(call, message);
        return MBX_ERR_UNSUPPORTED_FORMAT;
    }
    mbx_image marker;
    return host->create_image(photo, "org.mattebox.tests.seen", 4, 2, 1, MBX_SAMPLE_U8, &marker);
}

static void destroy(void *instance) { free(instance); }

static const mbx_plugin_descriptor descriptor = {
    .struct_size = sizeof(mbx_plugin_descriptor), .abi_major = MBX_ABI_MAJOR, .abi_minor = MBX_ABI_MINOR,
    .id = "org.mattebox.tests.fail-on-narrow", .name = "Fail on narrow photos", .description = "test fixture",
    .vendor = "tests", .license = "MIT", .version_major = 1, .thread_safety = MBX_THREAD_INSTANCE,
    .inputs = inputs, .input_count = 1, .outputs = outputs, .output_count = 1, .params = params, .param_count = 1,
    .create = create, .process = process, .destroy = destroy,
};

__attribute__((visibility("default"))) const mbx_plugin_descriptor *mbx_plugin_get(uint32_t index, const mbx_host_api *api) {
    host = api;
    return index == 0 ? &descriptor : 0;
}
