/*
 * mattebox/plugin.h — Mattebox processor plugin ABI, version 1.3 (MBX_ABI_MAJOR.MBX_ABI_MINOR below).
 *
 * This header is the only contract between the Mattebox host and its plugins.
 * A plugin is a shared object that includes this header, links nothing of the
 * host, and exports exactly one function:
 *
 *     const mbx_plugin_descriptor *mbx_plugin_get(uint32_t index,
 *                                                 const mbx_host_api *host);
 *
 * The host calls it with index 0, 1, 2, ... until it returns NULL, so one
 * shared object may carry several processors. Every descriptor it returns
 * must stay valid, unchanged, for as long as the module is loaded (use static
 * storage). Modules are never unloaded.
 *
 * VERSIONING
 *   Every struct starts with `uint32_t struct_size`. Structs only grow at the
 *   end (fields are appended under "since ABI 1.N" markers), and readers never
 *   read past `struct_size`. The host accepts a plugin when its abi_major
 *   equals MBX_ABI_MAJOR and its abi_minor is not newer than the host's.
 *
 * OWNERSHIP
 *   The host owns every photo, image and string it hands out. A plugin borrows
 *   the photo for one `process` call; image pointers and strings from the host
 *   are valid only until the next host call on the same photo or the end of
 *   `process`, whichever comes first. Messages a plugin passes to the host are
 *   copied. Instance state belongs to the plugin from `create` to `destroy`;
 *   `destroy` is always called once for every successful `create`.
 *
 * GEOMETRY
 *   A processor that rotates, mirrors or crops must do it with
 *   host->transform or host->crop, which apply the same change to the primary
 *   image and to every auxiliary image (depth, mattes), so they stay
 *   registered pixel for pixel.
 *
 * THREADING
 *   `mbx_plugin_get`, `create` and `destroy` run on one control thread;
 *   `process` may run on worker threads according to the descriptor's
 *   thread_safety. Plugins must not call exit/abort, install signal handlers,
 *   change the process environment or keep threads alive after `destroy`.
 *
 * ERRORS
 *   Functions return an mbx_status. Before returning an error a plugin should
 *   call host->set_error with a human-readable message naming what failed.
 *   C++ exceptions and Swift errors must never cross this boundary.
 */
#ifndef MATTEBOX_PLUGIN_H
#define MATTEBOX_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MBX_ABI_MAJOR 1
#define MBX_ABI_MINOR 3

/* The exported entry point's name, for dlsym. */
#define MBX_ENTRY_POINT_NAME "mbx_plugin_get"

/* ---- status codes ------------------------------------------------------ */

typedef int32_t mbx_status;
#define MBX_OK 0
#define MBX_ERR_INVALID_ARGUMENT 1   /* a parameter or input is not acceptable */
#define MBX_ERR_UNSUPPORTED_FORMAT 2 /* pixel format or size not handled */
#define MBX_ERR_OUT_OF_MEMORY 3
#define MBX_ERR_NOT_FOUND 4          /* a role or metadata key is absent */
#define MBX_ERR_CANCELLED 5
#define MBX_ERR_INTERNAL 6           /* anything else; say what in set_error */

/* ---- well-known image roles ------------------------------------------- */
/* Vendor roles use reverse-DNS names ("com.example.normals"). */

#define MBX_ROLE_PRIMARY "primary"
#define MBX_ROLE_DEPTH "depth"
#define MBX_ROLE_DISPARITY "disparity"
#define MBX_ROLE_PORTRAIT_MATTE "portraitMatte"
#define MBX_ROLE_HAIR_MATTE "hairMatte"
#define MBX_ROLE_SKIN_MATTE "skinMatte"
#define MBX_ROLE_TEETH_MATTE "teethMatte"
#define MBX_ROLE_GLASSES_MATTE "glassesMatte"
#define MBX_ROLE_SKY_MATTE "skyMatte"
#define MBX_ROLE_THUMBNAIL "thumbnail"

/* ---- well-known metadata keys ----------------------------------------- */

#define MBX_META_ORIENTATION "exif.orientation"   /* int 1..8 */
#define MBX_META_MAKE "exif.make"                 /* string */
#define MBX_META_MODEL "exif.model"               /* string */
#define MBX_META_DATE_TIME "exif.dateTimeOriginal" /* string "YYYY:MM:DD HH:MM:SS" */
#define MBX_META_HAS_LOCATION "exif.hasLocation"  /* int 0/1, read-only */
#define MBX_META_EXPOSURE_VALUE "exif.exposureValue" /* string, read-only: EV at ISO 100 from ExposureTime,
                                                        FNumber and ISO ("14.70"; daylight 12-16, indoors 4-8) */
#define MBX_META_LOCATION "exif.location"         /* remove_metadata strips GPS data */
#define MBX_META_CAMERA_POSITION "capture.position" /* "front", "back", "external", "unspecified" */
#define MBX_META_MIRRORED "capture.mirrored"      /* int 0/1: pixels are already mirrored */
#define MBX_META_SENSOR_ROTATION "capture.sensorRotation" /* int degrees 0/90/180/270 */
#define MBX_META_DEVICE "capture.device"          /* string */
#define MBX_META_QUALITY "capture.quality"        /* "speed", "balanced", "quality" */
/* Since ABI 1.1: what the sink writes for this photo (a packaging stage sets
 * these; they override the command line). */
#define MBX_META_INPUT_FORMAT "input.format"      /* string, read-only: the container the photo was read from
                                                    ("jpeg", "png", "heic", ...); absent for a capture */
#define MBX_META_OUTPUT_FORMAT "output.format"    /* "jpeg", "png", "heic" */
#define MBX_META_OUTPUT_QUALITY "output.quality"  /* int 1..100 */
#define MBX_META_OUTPUT_PRESET "output.encoderPreset" /* x265 preset: "ultrafast" .. "slower" */
#define MBX_META_OUTPUT_THUMBNAIL "output.thumbnailSize" /* int: HEIF thumbnail's longest side, 0 = none */
/* Since ABI 1.2: free-form string notes under "note.<name>", reported with the
 * photo (e.g. why a stage produced no matte). Names: letters, digits, - _ . */
#define MBX_META_NOTE_PREFIX "note."
#define MBX_META_NOTE_PORTRAIT_MATTE "note.portraitMatte"   /* why no portrait matte */
#define MBX_META_NOTE_SEMANTIC_MATTES "note.semanticMattes" /* why some semantic mattes are absent */
#define MBX_META_NOTE_DEPTH "note.depth"                     /* where depth came from */
/* Since ABI 1.3: free-form strings under "shared.<name>" that a stage leaves for
 * later stages of the same photo, so work is not done twice (never written to a
 * file or reported). The photo may have changed in between: a value says what it
 * was computed from, and a stage checks that before it uses it. Names as notes. */
#define MBX_META_SHARED_PREFIX "shared."
#define MBX_META_SHARED_FACE "shared.vision.face" /* the largest upright face the vision plugins found, with
                                                     how and on which pixels (MatteboxVisionPluginKit's
                                                     SharedFace) */
/* Read-only, "source.<role>": where the file stored the photo's own image of that
 * role when it was not a HEIF auxiliary image ("iPhone JPEG disparity (MPF image 2)",
 * "Lens Blur depth (GDepth RangeInverse, ...)"); not found otherwise, and on hosts
 * that predate it. */
#define MBX_META_SOURCE_PREFIX "source."

/* ---- image views ------------------------------------------------------ */

typedef uint32_t mbx_sample_format;
#define MBX_SAMPLE_U8 1  /* uint8_t per channel */
#define MBX_SAMPLE_U16 2 /* uint16_t per channel, native endian */
#define MBX_SAMPLE_F32 3 /* float per channel */

/* A view of one image owned by the host: interleaved channels, rows of
 * stride_bytes each. `data` is writable for the duration of the call. */
typedef struct mbx_image {
    uint32_t struct_size;
    uint32_t width;
    uint32_t height;
    uint32_t channels;          /* 1 (grey, depth, mattes), 3 (RGB), 4 (RGBA) */
    mbx_sample_format format;
    uint32_t stride_bytes;
    void *data;
} mbx_image;

/* ---- geometry --------------------------------------------------------- */

typedef uint32_t mbx_transform;
#define MBX_TRANSFORM_ROTATE_90 1  /* clockwise */
#define MBX_TRANSFORM_ROTATE_180 2
#define MBX_TRANSFORM_ROTATE_270 3 /* clockwise, i.e. 90 anticlockwise */
#define MBX_TRANSFORM_FLIP_HORIZONTAL 4 /* left-right mirror */
#define MBX_TRANSFORM_FLIP_VERTICAL 5   /* top-bottom mirror */

/* ---- parameters ------------------------------------------------------- */

typedef uint32_t mbx_param_type;
#define MBX_PARAM_BOOL 1
#define MBX_PARAM_INT 2
#define MBX_PARAM_DOUBLE 3
#define MBX_PARAM_STRING 4
#define MBX_PARAM_ENUM 5 /* a string from enum_values */

/* One typed parameter. Numbers use default_number, min and max (hard limits,
 * inclusive; the host rejects values outside them); strings and enums use
 * default_string. */
typedef struct mbx_param_spec {
    uint32_t struct_size;
    const char *key;         /* stable ASCII key used in pipeline files */
    const char *description; /* one sentence for `mattebox plugins inspect` */
    mbx_param_type type;
    double default_number;   /* bool: 0 or 1 */
    const char *default_string;
    double min;
    double max;
    const char *const *enum_values;
    uint32_t enum_count;
    const char *unit;        /* "px", "deg", ... or NULL */
} mbx_param_spec;

/* An image a processor reads or writes, named by role. */
typedef struct mbx_port {
    uint32_t struct_size;
    const char *role;
    uint32_t flags;          /* MBX_PORT_* */
    const char *description;
} mbx_port;

#define MBX_PORT_OPTIONAL 1u /* input: used when present; output: may not be produced */

/* ---- opaque host objects ---------------------------------------------- */

typedef struct mbx_photo mbx_photo;   /* the photo being processed */
typedef struct mbx_params mbx_params; /* validated parameter values for create */
typedef struct mbx_call mbx_call;     /* the context of one host-facing call */

/* ---- host services ---------------------------------------------------- */

typedef uint32_t mbx_log_level;
#define MBX_LOG_DEBUG 0
#define MBX_LOG_INFO 1
#define MBX_LOG_WARNING 2
#define MBX_LOG_ERROR 3

/* Functions the host offers plugins. A plugin keeps the pointer it received
 * in mbx_plugin_get; it is valid for the life of the process. */
typedef struct mbx_host_api {
    uint32_t struct_size;
    uint16_t abi_major;
    uint16_t abi_minor;
    const char *host_version;

    /* Logging, thread-safe; the host prefixes the plugin id. */
    void (*log)(mbx_call *call, mbx_log_level level, const char *message);
    /* Records the error message returned with a failing status (copied). */
    void (*set_error)(mbx_call *call, const char *message);

    /* Parameters, valid inside create. Return MBX_ERR_NOT_FOUND for an
     * unknown key. Strings stay valid until create returns. */
    mbx_status (*param_bool)(const mbx_params *params, const char *key, int32_t *value);
    mbx_status (*param_int)(const mbx_params *params, const char *key, int64_t *value);
    mbx_status (*param_double)(const mbx_params *params, const char *key, double *value);
    mbx_status (*param_string)(const mbx_params *params, const char *key, const char **value);

    /* Images of the photo by role. */
    mbx_status (*get_image)(mbx_photo *photo, const char *role, mbx_image *view);
    /* Creates (or replaces) an auxiliary image; the view's pixels are zeroed. */
    mbx_status (*create_image)(mbx_photo *photo, const char *role, uint32_t width,
                               uint32_t height, uint32_t channels,
                               mbx_sample_format format, mbx_image *view);
    mbx_status (*remove_image)(mbx_photo *photo, const char *role);
    uint32_t (*image_count)(mbx_photo *photo);
    const char *(*image_role_at)(mbx_photo *photo, uint32_t index);

    /* Geometry applied to every image of the photo at once. */
    mbx_status (*transform)(mbx_photo *photo, mbx_transform transform);
    /* Crop in primary-image pixels; auxiliary images are cropped to the same
     * relative rectangle. */
    mbx_status (*crop)(mbx_photo *photo, uint32_t x, uint32_t y, uint32_t width,
                       uint32_t height);

    /* Metadata by key (see MBX_META_*). Getters return MBX_ERR_NOT_FOUND when
     * the photo has no such value. */
    mbx_status (*get_int)(mbx_photo *photo, const char *key, int64_t *value);
    mbx_status (*set_int)(mbx_photo *photo, const char *key, int64_t value);
    mbx_status (*get_string)(mbx_photo *photo, const char *key, const char **value);
    mbx_status (*set_string)(mbx_photo *photo, const char *key, const char *value);
    /* Removes a value or a group: "exif.location" strips GPS data. */
    mbx_status (*remove_metadata)(mbx_photo *photo, const char *key);
} mbx_host_api;

/* ---- the processor ---------------------------------------------------- */

typedef uint32_t mbx_thread_safety;
#define MBX_THREAD_SERIALIZED 0 /* the host serialises every call of the plugin */
#define MBX_THREAD_INSTANCE 1   /* one process() per instance at a time */
#define MBX_THREAD_CONCURRENT 2 /* process() may run concurrently on one instance */

typedef struct mbx_plugin_descriptor mbx_plugin_descriptor;

struct mbx_plugin_descriptor {
    uint32_t struct_size;
    uint16_t abi_major;      /* MBX_ABI_MAJOR the plugin was built against */
    uint16_t abi_minor;      /* MBX_ABI_MINOR the plugin was built against */
    const char *id;          /* reverse-DNS, stable: "org.example.invert" */
    const char *name;        /* short human name */
    const char *description;
    const char *vendor;
    const char *license;     /* SPDX identifier */
    uint32_t version_major;
    uint32_t version_minor;
    uint32_t version_patch;
    mbx_thread_safety thread_safety;
    const mbx_port *inputs;
    uint32_t input_count;
    const mbx_port *outputs;
    uint32_t output_count;
    const mbx_param_spec *params;
    uint32_t param_count;

    /* Makes an instance from validated parameters. */
    mbx_status (*create)(const mbx_plugin_descriptor *self, const mbx_params *params,
                         mbx_call *call, void **instance);
    /* Processes one photo in place. */
    mbx_status (*process)(void *instance, mbx_call *call, mbx_photo *photo);
    void (*destroy)(void *instance);
};

/* The entry point every plugin exports. */
typedef const mbx_plugin_descriptor *(*mbx_plugin_get_fn)(uint32_t index,
                                                           const mbx_host_api *host);

#ifdef __cplusplus
}
#endif

#endif /* MATTEBOX_PLUGIN_H */
