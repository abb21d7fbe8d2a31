/*
 * mbx_vision.h — the C face of Mattebox's OpenCV code (stereo depth, stereo
 * calibration, face finding and portrait/semantic mattes).
 *
 * OpenCV is C++; Swift and plugins in any language call these plain C
 * functions instead. Every function returns 0 on success, or non-zero with a
 * message in `error` saying what failed. No C++ exception crosses this line.
 * Callers own every buffer: outputs are written into memory they allocated.
 */
#ifndef MBX_VISION_H
#define MBX_VISION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sample formats, the same numbers as the plugin ABI's MBX_SAMPLE_*. */
#define MBX_CV_U8 1
#define MBX_CV_U16 2
#define MBX_CV_F32 3

/* An interleaved image someone else owns: 1 (grey), 3 (RGB) or 4 (RGBA) channels. */
typedef struct mbx_cv_image {
    void *data;
    int width;
    int height;
    int channels;
    int format;
    size_t stride; /* bytes from one row to the next */
} mbx_cv_image;

typedef struct mbx_cv_error {
    char message[512];
} mbx_cv_error;

typedef struct mbx_cv_rect {
    int x, y, width, height;
} mbx_cv_rect;

/* ---- Stereo ---------------------------------------------------------- */

typedef struct mbx_cv_stereo_options {
    int num_disparities; /* search range in pixels; 0 = a sixth of the width, rounded up to 16 */
    int refine;          /* 1: edge-aware weighted median at holes and depth edges; 0: grey SGBM and
                            background filling only; -1: the plain colour SGBM reference (for comparisons) */
    const char *calibration_path; /* NULL, or a file from mbx_cv_calibrate_stereo: rectify first */
    int out_width;       /* 0: the views' size; else match at this size (disparities scale with it) */
    int out_height;
} mbx_cv_stereo_options;

typedef struct mbx_cv_stereo_result {
    double valid_fraction;   /* share of pixels SGBM matched before filling */
    int num_disparities;     /* the range actually searched */
    double focal_px;         /* from the calibration, else 0 */
    double baseline;         /* from the calibration, in its units (the square size's), else 0 */
} mbx_cv_stereo_result;

/* The OpenCV version Mattebox was built with (CV_VERSION), for --version. */
const char *mbx_cv_version(void);

/* Disparity in pixels of the left view at the matching size, every pixel
 * filled: out holds out_width * out_height floats (or the views' size).
 * Both views must have the same size. focal_px is at the matching size. */
int mbx_cv_stereo_disparity(const mbx_cv_image *left, const mbx_cv_image *right,
                            const mbx_cv_stereo_options *options, float *out,
                            mbx_cv_stereo_result *result, mbx_cv_error *error);

/* Fills holes (value <= 0) of a depth frame and smooths it along the edges of
 * `guide` (the colour photo, any size: it is resized to the depth's). */
int mbx_cv_fill_depth(const mbx_cv_image *guide, float *depth, int width, int height,
                      mbx_cv_error *error);

/* ---- Stereo calibration --------------------------------------------- */

typedef struct mbx_cv_calibration {
    double rms;        /* stereo reprojection error, pixels */
    double left_rms;
    double right_rms;
    int pairs_used;    /* pairs where the board was found in both views */
    double focal_px;   /* of the rectified views */
    double baseline;   /* in the square size's units */
} mbx_cv_calibration;

/* Calibrates a stereo camera from chessboard views (inner corners cols x rows),
 * writes K1 D1 K2 D2 R T E F R1 R2 P1 P2 Q and the image size to output_path
 * (OpenCV YAML), and reports the errors. found[i] says whether pair i was used. */
int mbx_cv_calibrate_stereo(const mbx_cv_image *lefts, const mbx_cv_image *rights, int count,
                            int board_cols, int board_rows, double square_size,
                            const char *output_path, int *found, mbx_cv_calibration *result,
                            mbx_cv_error *error);

/* ---- The inference process of a batch ------------------------------- */

/* Serves the networks of every worker of a batch (the workers find it through
 * MATTEBOX_INFERENCE_SOCKET) on a listening Unix socket: each network is
 * loaded once and run for all of them. Returns only on error. */
int mbx_cv_serve_inference(int listening_socket, mbx_cv_error *error);

/* How many networks the inference process at socket_path holds. */
int mbx_cv_inference_network_count(const char *socket_path, int *count, mbx_cv_error *error);

/* ---- Faces and mattes ----------------------------------------------- */

/* How hard to work: 0 speed, 1 balanced, 2 quality (working resolution and refinement). */
typedef struct mbx_cv_matte_options {
    const char *cascade_dir; /* folder holding haarcascade_frontalface_default.xml */
    const char *face_model;  /* CenterFace ONNX (`mattebox models install centerface`); NULL: the cascade alone */
    const char *landmark_model; /* MediaPipe's face mesh as ONNX (`mattebox models install facemesh`); NULL: none */
    const char *pose_model;     /* MediaPipe's pose landmarks as ONNX (`mattebox models install pose`); NULL: none */
    int effort;
    int orientation;         /* EXIF orientation of the stored pixels, 1..8: faces are found upright */
} mbx_cv_matte_options;

/* A face the mattes are built around, in stored-pixel coordinates. */
typedef struct mbx_cv_face {
    mbx_cv_rect box;     /* a square like the Haar cascade's box (the mattes' layout is measured in those) */
    mbx_cv_rect mouth;   /* centred between the mouth's corners, as wide as they are apart and half as
                            tall (along the eye line); width 0 when unknown (the cascade found the face) */
    double roll_degrees; /* how far the eye line turns clockwise from level in the upright photo
                            (0 when the cascade found the face) */
} mbx_cv_face;

/* The largest upright face; *found = 0 when none. */
int mbx_cv_find_face(const mbx_cv_image *image, const mbx_cv_matte_options *options,
                     mbx_cv_face *face, int *found, mbx_cv_error *error);

/* A single-channel 8-bit output the caller allocated at the size it wants. */
typedef struct mbx_cv_plane {
    uint8_t *data; /* NULL: not wanted */
    int width;
    int height;
    size_t stride;
} mbx_cv_plane;

/* The person around a face, soft at its edges. */
int mbx_cv_portrait_matte(const mbx_cv_image *image, const mbx_cv_matte_options *options,
                          mbx_cv_rect face, mbx_cv_plane *matte, mbx_cv_error *error);

/* Faces narrower than this (photo pixels) get no teeth matte: a mouth of
 * about 50 px is too small to tell teeth from a highlight on the lips. */
#define MBX_CV_SMALLEST_TEETH_FACE 96

typedef struct mbx_cv_semantic_planes {
    mbx_cv_plane hair;
    mbx_cv_plane skin;
    mbx_cv_plane teeth;
    int teeth_found; /* out: 0 when the mouth shows no teeth (teeth then stays all zero) */
    int brows_in_hair; /* in: 1 counts the eyebrows as hair (as FASSEG labels them); 0 head hair only */
    int landmarks_found; /* out: 1 when the face mesh outlined the face's parts (options->landmark_model) */
    int person_fallback; /* out: 1 when the given person matte missed the face (less than half of it),
                            so the mattes were built on a person worked out around the face instead */
    int pose_found;      /* out: 1 when the pose model found the person's body (options->pose_model) */
    unsigned pose_outside_person; /* out: keypoints the pose model saw that the given person matte misses,
                            bits MBX_CV_POSE_* */
} mbx_cv_semantic_planes;

/* Body keypoints a person matte should hold (bits of pose_outside_person). */
#define MBX_CV_POSE_LEFT_ELBOW 1u
#define MBX_CV_POSE_RIGHT_ELBOW 2u
#define MBX_CV_POSE_LEFT_WRIST 4u
#define MBX_CV_POSE_RIGHT_WRIST 8u
#define MBX_CV_POSE_LEFT_KNEE 16u
#define MBX_CV_POSE_RIGHT_KNEE 32u
#define MBX_CV_POSE_LEFT_ANKLE 64u
#define MBX_CV_POSE_RIGHT_ANKLE 128u

/* Hair, skin and teeth mattes for the person around a face as mbx_cv_find_face
 * gives it (they are worked out with the eyes level; teeth are looked for at
 * the mouth when it is known). person may be NULL (it is then computed); it
 * is the portrait matte at any size. */
int mbx_cv_semantic_mattes(const mbx_cv_image *image, const mbx_cv_matte_options *options,
                           const mbx_cv_face *face, const mbx_cv_image *person,
                           mbx_cv_semantic_planes *planes, mbx_cv_error *error);

/* Skin where no face is found but a person matte is given (hands, arms, legs,
 * feet in the frame): candidates by a broad skin prior in YCrCb inside the
 * person, then a colour model fitted to them. *found = 0 (and the matte all
 * zero) when the person shows no skin. */
int mbx_cv_skin_without_face(const mbx_cv_image *image, const mbx_cv_matte_options *options,
                             const mbx_cv_image *person, mbx_cv_plane *matte, int *found, mbx_cv_error *error);

/* The sky: smooth, blue or bright-overcast regions reaching down from the
 * top of the upright photo, soft at their edges (branches, rooftops). person
 * (may be NULL) is held out; face_width (0: no face) keeps a close portrait's
 * plain backdrop from counting as overcast sky; exposure_value (EV at ISO 100
 * from EXIF, NaN when unknown) below daylight's keeps a white table or wall
 * indoors from counting as overcast sky. *found is 0 (and the matte all
 * zero) when no sky shows. */
int mbx_cv_sky_matte(const mbx_cv_image *image, const mbx_cv_matte_options *options, const mbx_cv_image *person,
                     int face_width, double exposure_value, mbx_cv_plane *matte, int *found, mbx_cv_error *error);

/* ---- Mattes from a segmentation model the user supplies (cv::dnn) ------- */

typedef struct mbx_cv_model_options {
    const char *path;          /* an ONNX file */
    int input_width;           /* the size the model takes; the region is stretched to it */
    int input_height;
    float mean[3];             /* per input plane, on samples scaled to 0...1: (v - mean) / std */
    float std[3];
    int bgr;                   /* 1: planes in B, G, R order; 0: R, G, B */
    double crop;               /* 0: the whole (upright) photo; k > 0: a square k face widths wide
                                  centred on the face (face parsers expect a face-centred crop) */
    const mbx_cv_image *person; /* the portrait matte, or NULL: where outputs reach beyond the crop */
    const int *facial_hair_classes; /* classes of hair on the face labelled apart (eyebrows), whose colours
                                       tell a beard in a skin output; NULL or count 0: none */
    int facial_hair_class_count;
    const int *beard_ground_classes; /* classes a beard grows on (the face's skin, not the neck) */
    int beard_ground_class_count;
    int every_face;            /* with a crop: also parse every other face CenterFace finds (options' face_model)
                                  at least a third as wide as the given one, each in its own square */
    double face_roll;          /* the face's roll (mbx_cv_face.roll_degrees): with a crop, each square is turned by
                                  the quarter turns that bring the face nearest upright before the model sees it */
} mbx_cv_model_options;

/* What a model's output is, for what is done with it beyond the model. */
enum {
    MBX_CV_SURFACE_OTHER = 0, /* the model's classes as they are */
    MBX_CV_SURFACE_HAIR = 1,  /* hair: goes on past a face crop over the person, joined to the hair the model saw */
    MBX_CV_SURFACE_SKIN = 2   /* skin: a beard's hair left out; every sizeable piece of the person in the
                                 face's skin colours past a face crop (hands, arms) */
};

typedef struct mbx_cv_model_output {
    mbx_cv_plane plane;        /* written in stored orientation, 0 outside the region */
    const int *classes;        /* output channels whose probabilities are summed into this matte */
    int class_count;
    int surface;               /* MBX_CV_SURFACE_*; past the crop needs the person matte */
} mbx_cv_model_output;

/* Runs the model on the photo turned upright. An output with several
 * channels is read as per-class scores (softmax unless they already sum to
 * one); a single channel is a matte (sigmoid unless already within 0...1). */
int mbx_cv_model_mattes(const mbx_cv_image *image, const mbx_cv_matte_options *options, mbx_cv_rect face,
                        const mbx_cv_model_options *model, mbx_cv_model_output *outputs, int output_count,
                        mbx_cv_error *error);

/* ---- Portrait effects: depth of field, background replacement, cut-outs ---- */

#define MBX_CV_BACKGROUND_BLUR 0
#define MBX_CV_BACKGROUND_COLOUR 1
#define MBX_CV_BACKGROUND_IMAGE 2
#define MBX_CV_BACKGROUND_TRANSPARENT 3

#define MBX_CV_FOCUS_SUBJECT 0 /* the face, else the matte, else the near region of the depth */
#define MBX_CV_FOCUS_POINT 1   /* focus_x, focus_y */
#define MBX_CV_FOCUS_DISPARITY 2 /* focus_disparity, focus_band: an earlier render's plane (a gain map follows its primary) */

/* Where the focus was taken from (mbx_cv_portrait_effect_result.focus_from). */
#define MBX_CV_FOCUSED_ON_POINT 0
#define MBX_CV_FOCUSED_ON_FACE 1
#define MBX_CV_FOCUSED_ON_MATTE 2
#define MBX_CV_FOCUSED_ON_NEAR_REGION 3
#define MBX_CV_FOCUSED_ON_DISPARITY 4

typedef struct mbx_cv_portrait_effect_options {
    double strength;        /* share of the widest aperture's blur, 0 (none) ... 1: the plugin maps its f-numbers onto it */
    double max_blur;        /* blur radius at f/1.4 across the whole depth range, as a share of the long side */
    double highlights;      /* 0: off; up to 1: bright points bloom into bokeh balls (blurred in power 1 + 3h) */
    int focus;              /* MBX_CV_FOCUS_* */
    double focus_x, focus_y; /* 0...1 across the upright photo, for MBX_CV_FOCUS_POINT */
    mbx_cv_rect face;       /* the face in stored pixels (width 0: none), for MBX_CV_FOCUS_SUBJECT */
    int orientation;        /* EXIF orientation of the stored pixels, 1..8 */
    int depth_is_distance;  /* 1: `disparity` holds distances (metres), turned into 1/distance */
    int background;         /* MBX_CV_BACKGROUND_* */
    float colour[3];        /* RGB 0...1, for MBX_CV_BACKGROUND_COLOUR */
    const mbx_cv_image *background_image; /* upright pixels (any size; mbx_image_file.h reads a file),
                                             scaled to cover the photo, for MBX_CV_BACKGROUND_IMAGE */
    double focus_disparity, focus_band; /* for MBX_CV_FOCUS_DISPARITY: the plane on the 0...1 scale and
                                           the disparity kept sharp either side (an earlier result's) */
    int keep_depth;         /* 1: the edge-true depth made is kept in result->depth, for a later render of
                               the same scene (a gain map after its primary) */
    const struct mbx_cv_scene_depth *depth_from; /* an earlier render's kept depth, used instead of making
                               it again from this image's edges (NULL: made here) */
    int leave_ground_out;   /* 1: the matte was made by a portrait-matting network (or the classical cut-out),
                               which takes the subject to go on out of the frame's foot: for a new background
                               or a cut-out with measured depth, the surface the subject stands on is left out */
} mbx_cv_portrait_effect_options;

/* A render's edge-true depth, kept for a later render of the same scene: a gain
 * map is blurred over the depth made on its primary's edges (sharper than its
 * own, and the same as the primary's), not made again. Free with
 * mbx_cv_scene_depth_free. */
typedef struct mbx_cv_scene_depth mbx_cv_scene_depth;
void mbx_cv_scene_depth_free(mbx_cv_scene_depth *depth);

typedef struct mbx_cv_portrait_effect_result {
    double focus_disparity; /* the focal plane on the 0...1 disparity scale (0 farthest, 1 nearest) */
    double max_radius;      /* blur radius in pixels for a disparity difference of 1 at this aperture */
    double sharp_band;      /* disparity either side of the focal plane kept sharp (a subject's own depth) */
    int focus_from;         /* MBX_CV_FOCUSED_ON_* */
    double seconds;         /* time spent rendering */
    char depth_note[256];   /* with a matte alone, what the layered estimate did about the ground ("" when nothing) */
    mbx_cv_scene_depth *depth; /* with options->keep_depth and measured depth: the edge-true depth (the
                                  caller frees it), else NULL */
} mbx_cv_portrait_effect_result;

/* Renders a portrait effect into `output` (same size, channels and format as
 * `image`; it may be the same memory). `matte` (the subject, 255 = subject,
 * any size) and `disparity` (larger = nearer, any size; or distances with
 * depth_is_distance) may each be NULL, not both. Depth is scaled to 0...1
 * between its 1st and 99th percentiles and made edge-true (a bilateral solver
 * at 1024 px, then each depth edge shared between its sides by colour); with a
 * matte the subject is one plane; with a matte alone the subject stands in
 * front of a far background with the ground at its feet receding. The blur
 * radius follows |disparity - focus| (minus sharp_band). For a replaced or
 * transparent background the subject is the matte, else what lies at or in
 * front of the focal plane; `alpha` (may be NULL) receives its share of each
 * pixel, for MBX_CV_BACKGROUND_TRANSPARENT. */
int mbx_cv_portrait_effect(const mbx_cv_image *image, const mbx_cv_image *matte, const mbx_cv_image *disparity,
                           const mbx_cv_portrait_effect_options *options, mbx_cv_image *output, mbx_cv_plane *alpha,
                           mbx_cv_portrait_effect_result *result, mbx_cv_error *error);

/* ---- Render quality: the edges a render created ---- */

typedef struct mbx_cv_created_edges_result {
    double per_mille; /* created-edge pixels per 1000 of the frame, at the measure's size */
    int longest;      /* the longest connected line of them, in pixels at the measure's size */
    int width, height; /* the measure's size: 1008 px wide, the photo's aspect */
} mbx_cv_created_edges_result;

/* The edges `render` has that `original` does not (both the same framing, any
 * size): both grey at 1008 px wide, Gaussian sigma 0.8, Sobel magnitude / 8; a
 * pixel is created where the render's gradient exceeds the photo's by more than
 * 6 levels/px and 1.6 times, outside highlights (above 235 in either, grown 9 px),
 * after a 2x2 opening. `map` (may be NULL; the measure's size, 8-bit) receives
 * 255 where an edge was created. */
int mbx_cv_created_edges(const mbx_cv_image *original, const mbx_cv_image *render, mbx_cv_created_edges_result *result,
                         mbx_cv_plane *map, mbx_cv_error *error);

#ifdef __cplusplus
}
#endif

#endif
