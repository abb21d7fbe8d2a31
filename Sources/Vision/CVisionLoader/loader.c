/* See include/mbx_vision_loader.h. */
#include "mbx_vision_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef int (*stereo_fn)(const mbx_cv_image *, const mbx_cv_image *, const mbx_cv_stereo_options *, float *,
                         mbx_cv_stereo_result *, mbx_cv_error *);
typedef int (*calibrate_fn)(const mbx_cv_image *, const mbx_cv_image *, int, int, int, double, const char *, int *,
                            mbx_cv_calibration *, mbx_cv_error *);
typedef const char *(*version_fn)(void);
typedef int (*serve_fn)(int, mbx_cv_error *);
typedef int (*count_fn)(const char *, int *, mbx_cv_error *);
typedef int (*created_edges_fn)(const mbx_cv_image *, const mbx_cv_image *, mbx_cv_created_edges_result *, mbx_cv_plane *,
                                mbx_cv_error *);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static stereo_fn stereo;
static calibrate_fn calibrate;
static version_fn version;
static serve_fn serve;
static count_fn count_networks;
static created_edges_fn created_edges;

int mbx_cvl_load(const char *const *paths, int count, char *message, int message_size) {
    pthread_mutex_lock(&lock);
    int status = 0;
    if (!version) {
        status = -1;
        int used = snprintf(message, message_size, "the vision library (OpenCV) could not be loaded:");
        for (int i = 0; i < count && status != 0; i++) {
            void *handle = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
            if (!handle) {
                const char *reason = dlerror();
                if (used < message_size) {
                    used += snprintf(message + used, message_size - used, " %s (%s);", paths[i], reason ? reason : "?");
                }
                continue;
            }
            stereo = (stereo_fn)dlsym(handle, "mbx_cv_stereo_disparity");
            calibrate = (calibrate_fn)dlsym(handle, "mbx_cv_calibrate_stereo");
            version = (version_fn)dlsym(handle, "mbx_cv_version");
            serve = (serve_fn)dlsym(handle, "mbx_cv_serve_inference");
            count_networks = (count_fn)dlsym(handle, "mbx_cv_inference_network_count");
            created_edges = (created_edges_fn)dlsym(handle, "mbx_cv_created_edges");
            if (stereo && calibrate && version && serve && count_networks && created_edges) {
                status = 0;
            } else {
                version = NULL;
                if (used < message_size) {
                    used += snprintf(message + used, message_size - used, " %s lacks the expected functions;", paths[i]);
                }
            }
        }
    }
    pthread_mutex_unlock(&lock);
    return status;
}

int mbx_cvl_stereo_disparity(const mbx_cv_image *left, const mbx_cv_image *right,
                             const mbx_cv_stereo_options *options, float *out,
                             mbx_cv_stereo_result *result, mbx_cv_error *error) {
    return stereo(left, right, options, out, result, error);
}

int mbx_cvl_calibrate_stereo(const mbx_cv_image *lefts, const mbx_cv_image *rights, int count,
                             int board_cols, int board_rows, double square_size,
                             const char *output_path, int *found, mbx_cv_calibration *result,
                             mbx_cv_error *error) {
    return calibrate(lefts, rights, count, board_cols, board_rows, square_size, output_path, found, result, error);
}

const char *mbx_cvl_version(void) { return version(); }

int mbx_cvl_serve_inference(int listening_socket, mbx_cv_error *error) { return serve(listening_socket, error); }

int mbx_cvl_inference_network_count(const char *socket_path, int *count, mbx_cv_error *error) {
    return count_networks(socket_path, count, error);
}

int mbx_cvl_created_edges(const mbx_cv_image *original, const mbx_cv_image *render, mbx_cv_created_edges_result *result,
                          mbx_cv_plane *map, mbx_cv_error *error) {
    return created_edges(original, render, result, map, error);
}
