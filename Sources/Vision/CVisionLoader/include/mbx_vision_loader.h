/* Reaches the vision library (libMatteboxCVision.so, OpenCV behind the C API
 * of mbx_vision.h) at run time, so the mattebox command does not load OpenCV
 * and its hundred-odd libraries on every start: only `depth`, `calibrate` and
 * `evaluate` (and the render-quality measure) need it, and they load it on first use. */
#ifndef MBX_VISION_LOADER_H
#define MBX_VISION_LOADER_H

#include "mbx_vision.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loads the library from the first of `paths` that opens (once per process).
 * Returns 0, or -1 with a message naming what was tried in `message`. */
int mbx_cvl_load(const char *const *paths, int count, char *message, int message_size);

/* The library's functions, once loaded (see mbx_vision.h). */
int mbx_cvl_stereo_disparity(const mbx_cv_image *left, const mbx_cv_image *right,
                             const mbx_cv_stereo_options *options, float *out,
                             mbx_cv_stereo_result *result, mbx_cv_error *error);
int mbx_cvl_calibrate_stereo(const mbx_cv_image *lefts, const mbx_cv_image *rights, int count,
                             int board_cols, int board_rows, double square_size,
                             const char *output_path, int *found, mbx_cv_calibration *result,
                             mbx_cv_error *error);
const char *mbx_cvl_version(void);
int mbx_cvl_serve_inference(int listening_socket, mbx_cv_error *error);
int mbx_cvl_inference_network_count(const char *socket_path, int *count, mbx_cv_error *error);
int mbx_cvl_created_edges(const mbx_cv_image *original, const mbx_cv_image *render, mbx_cv_created_edges_result *result,
                          mbx_cv_plane *map, mbx_cv_error *error);

#ifdef __cplusplus
}
#endif

#endif
