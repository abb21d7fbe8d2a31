/*
 * A sample Mattebox plugin in plain C: inverts the primary image, or only a
 * band of it, to show the whole ABI from the plugin side with no SDK.
 *
 * Build it against the installed header alone:
 *     cc -shared -fPIC -fvisibility=hidden -I/usr/local/include \
 *        -o invert.so invert.c
 * and put invert.so in a folder on MATTEBOX_PLUGIN_PATH.
 */
#include <mattebox/plugin.h>
#include <stdio.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

static const mbx_host_api *host;

typedef struct {
    double amount; /* 0 = unchanged, 1 = fully inverted */
} invert_state;

static const mbx_port inputs[] = {
    {sizeof(mbx_port), MBX_ROLE_PRIMARY, 0, "an 8- or 16-bit photo"},
};
static const mbx_port outputs[] = {
    {sizeof(mbx_port), MBX_ROLE_PRIMARY, 0, "the photo, inverted"},
};
static const mbx_param_spec params[] = {
    {sizeof(mbx_param_spec), "amount", "how far to invert: 0 leaves the photo, 1 inverts it fully",
     MBX_PARAM_DOUBLE, 1.0, NULL, 0.0, 1.0, NULL, 0, "ratio"},
};

static mbx_status invert_create(const mbx_plugin_descriptor *self, const mbx_params *values,
                                mbx_call *call, void **instance) {
    (void)self;
    invert_state *state = calloc(1, sizeof(*state));
    if (!state) {
        host->set_error(call, "out of memory");
        return MBX_ERR_OUT_OF_MEMORY;
    }
    if (host->param_double(values, "amount", &state->amount) != MBX_OK) {
        free(state);
        host->set_error(call, "parameter amount is missing");
        return MBX_ERR_INVALID_ARGUMENT;
    }
    *instance = state;
    return MBX_OK;
}

static mbx_status invert_process(void *instance, mbx_call *call, mbx_photo *photo) {
    const invert_state *state = instance;
    mbx_image image = {sizeof(mbx_image)};
    if (host->get_image(photo, MBX_ROLE_PRIMARY, &image) != MBX_OK) {
        host->set_error(call, "the photo has no primary image");
        return MBX_ERR_NOT_FOUND;
    }
    double amount = state->amount;
    for (uint32_t y = 0; y < image.height; y++) {
        unsigned char *row = (unsigned char *)image.data + (size_t)y * image.stride_bytes;
        size_t samples = (size_t)image.width * image.channels;
        if (image.format == MBX_SAMPLE_U8) {
            for (size_t i = 0; i < samples; i++) {
                row[i] = (unsigned char)(row[i] + amount * (255 - 2 * row[i]) + 0.5);
            }
        } else if (image.format == MBX_SAMPLE_U16) {
            uint16_t *wide = (uint16_t *)row;
            for (size_t i = 0; i < samples; i++) {
                wide[i] = (uint16_t)(wide[i] + amount * (65535 - 2.0 * wide[i]) + 0.5);
            }
        } else {
            host->set_error(call, "only 8- and 16-bit photos can be inverted");
            return MBX_ERR_UNSUPPORTED_FORMAT;
        }
    }
    return MBX_OK;
}

static void invert_destroy(void *instance) { free(instance); }

static const mbx_plugin_descriptor descriptor = {
    .struct_size = sizeof(mbx_plugin_descriptor),
    .abi_major = MBX_ABI_MAJOR,
    .abi_minor = MBX_ABI_MINOR,
    .id = "org.mattebox.samples.invert",
    .name = "Invert (C sample)",
    .description = "Inverts the primary image; a sample plugin written in plain C",
    .vendor = "Mattebox samples",
    .license = "MIT",
    .version_major = 1,
    .version_minor = 0,
    .version_patch = 0,
    .thread_safety = MBX_THREAD_CONCURRENT,
    .inputs = inputs,
    .input_count = 1,
    .outputs = outputs,
    .output_count = 1,
    .params = params,
    .param_count = 1,
    .create = invert_create,
    .process = invert_process,
    .destroy = invert_destroy,
};

EXPORT const mbx_plugin_descriptor *mbx_plugin_get(uint32_t index, const mbx_host_api *api) {
    if (index != 0) {
        return NULL;
    }
    host = api;
    return &descriptor;
}
