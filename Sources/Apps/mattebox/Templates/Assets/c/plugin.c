/*
 * {{TITLE}}: a Mattebox processor plugin in C, made by `mattebox plugins new`.
 * It multiplies the primary image by `gain`; change process() to do your work.
 * The ABI is documented in <mattebox/plugin.h>.
 */
#include <mattebox/plugin.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

static const mbx_host_api *host;

typedef struct {
    double gain;
} {{SYMBOL}}_state;

static const mbx_port inputs[] = {{sizeof(mbx_port), MBX_ROLE_PRIMARY, 0, "an 8- or 16-bit photo"}};
static const mbx_port outputs[] = {{sizeof(mbx_port), MBX_ROLE_PRIMARY, 0, "the photo, brighter or darker"}};
static const mbx_param_spec params[] = {
    {sizeof(mbx_param_spec), "gain", "what every sample is multiplied by (1 leaves the photo as it is)",
     MBX_PARAM_DOUBLE, 1.2, NULL, 0.0, 4.0, NULL, 0, "ratio"},
};

static mbx_status create(const mbx_plugin_descriptor *self, const mbx_params *values, mbx_call *call, void **instance) {
    (void)self;
    {{SYMBOL}}_state *state = calloc(1, sizeof(*state));
    if (!state) {
        host->set_error(call, "out of memory");
        return MBX_ERR_OUT_OF_MEMORY;
    }
    host->param_double(values, "gain", &state->gain);
    *instance = state;
    return MBX_OK;
}

static mbx_status process(void *instance, mbx_call *call, mbx_photo *photo) {
    const {{SYMBOL}}_state *state = instance;
    mbx_image image = {sizeof(mbx_image)};
    if (host->get_image(photo, MBX_ROLE_PRIMARY, &image) != MBX_OK) {
        host->set_error(call, "the photo has no primary image");
        return MBX_ERR_NOT_FOUND;
    }
    size_t samples = (size_t)image.width * image.channels;
    for (uint32_t y = 0; y < image.height; y++) {
        unsigned char *row = (unsigned char *)image.data + (size_t)y * image.stride_bytes;
        for (size_t i = 0; i < samples; i++) {
            if (image.format == MBX_SAMPLE_U8) {
                double value = row[i] * state->gain + 0.5;
                row[i] = (unsigned char)(value > 255 ? 255 : value);
            } else if (image.format == MBX_SAMPLE_U16) {
                double value = ((uint16_t *)row)[i] * state->gain + 0.5;
                ((uint16_t *)row)[i] = (uint16_t)(value > 65535 ? 65535 : value);
            } else {
                host->set_error(call, "only 8- and 16-bit photos are supported");
                return MBX_ERR_UNSUPPORTED_FORMAT;
            }
        }
    }
    return MBX_OK;
}

static void destroy(void *instance) { free(instance); }

static const mbx_plugin_descriptor descriptor = {
    .struct_size = sizeof(mbx_plugin_descriptor), .abi_major = MBX_ABI_MAJOR, .abi_minor = MBX_ABI_MINOR,
    .id = "{{ID}}", .name = "{{TITLE}}", .vendor = "{{VENDOR}}", .license = "MIT",
    .description = "Multiplies the primary image by a gain (made by mattebox plugins new)",
    .version_major = 0, .version_minor = 1, .version_patch = 0, .thread_safety = MBX_THREAD_CONCURRENT,
    .inputs = inputs, .input_count = 1, .outputs = outputs, .output_count = 1, .params = params, .param_count = 1,
    .create = create, .process = process, .destroy = destroy,
};

/* The one symbol Mattebox looks for: descriptor 0 is this plugin's; the host's services come with it. */
EXPORT const mbx_plugin_descriptor *mbx_plugin_get(uint32_t index, const mbx_host_api *api) {
    host = api;
    return index == 0 ? &descriptor : NULL;
}
