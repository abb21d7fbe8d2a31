// What the portrait effect's files share: the scene a photo is rendered from
// (each pixel as up to two fragments, each with its colour and depth) and the
// steps that make and render it. Nothing full-size is kept but the photo as
// given: full-size rows are made from working-size maps when they are read
// (a 12 MP float image is 144 MB, and fresh memory costs more in page faults
// than the arithmetic done in it).
#pragma once
#include "depth_refine.hpp"
#include "level_rows.hpp"
#include "mbx_vision.h"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <opencv2/core.hpp>
#include <vector>

namespace mbx {

/// Step times on standard error when MATTEBOX_PROFILE_EFFECT is set (for tuning).
struct StepClock {
    bool on = std::getenv("MATTEBOX_PROFILE_EFFECT") != nullptr;
    std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
    void operator()(const char *step) {
        auto now = std::chrono::steady_clock::now();
        if (on) std::fprintf(stderr, "portrait effect: %-24s %7.1f ms\n", step, std::chrono::duration<double, std::milli>(now - last).count());
        last = now;
    }
};

/// Bilinear sample of `level` at full-size pixel (x, y), the level being
/// `scale` times the full size (pixel centres aligned); any channel count.
void sampleLevel(const cv::Mat &level, double scale, int x, int y, float *out);

/// Blur-fusion (Forte & Pitie 2021) at a working size of at most 1024 px:
/// smooth foreground and background colours around soft edges of `alpha`.
void estimateColours(const cv::Mat &image, const cv::Mat &alpha, cv::Mat &foreground, cv::Mat &background);

/// An edge pixel's foreground and background colours from the smooth
/// estimates: the compositing equation's residual shared by alpha.
void edgeColours(const float *pixel, float a, const float *f, const float *b, float *foreground, float *background);

/// One row of a photo as float RGB 0...1, from 8, 16-bit or float samples
/// with 1 (grey), 3 (RGB) or 4 (RGBA, alpha left aside) channels.
void photoRow(const cv::Mat &photo, int y, float *rgb);

/// The photo as the renderer sees it. Every pixel is one fragment, or two
/// where an edge passes (a soft matte's, or a depth edge's): the subject's
/// (or the near side's) share alpha with its own colour and disparity, and
/// the rest, behind it, with its own. Disparities are 0 (far) ... 1 (near).
/// All maps are at the working size (long side 1024 at most); SceneRows
/// reads them at full size.
struct PortraitScene {
    cv::Mat photo;              // the photo as given (stored orientation, its own format)
    cv::Size size;              // its size
    cv::Mat working;            // CV_32FC3, the photo at the working size
    cv::Mat zones;              // CV_8U: where alpha comes from (0: nowhere, all first fragment; 1: the matte; 2: a depth edge)
    cv::Mat matte;              // CV_32F at its own size (empty without one)
    DepthEdges edges;           // the depth edges' sides and colours
    cv::Mat foregroundSmooth;   // blur-fusion colours at alpha's soft edges (working size; empty when no edge)
    cv::Mat backgroundSmooth;
    cv::Mat subjectDisparity;   // CV_32F: the first fragment's
    cv::Mat behindDisparity;    // CV_32F: the second fragment's
    float subjectPlane = 1;     // the matte's subject's disparity (one plane)
    bool measured = false;      // the disparity is the photo's own, not the matte's estimate
    bool hasMatte = false;
    const char *groundNote = nullptr; // what the matte-only estimate did about the ground, if anything

    double workingScale() const { return double(subjectDisparity.cols) / size.width; }
};

/// The scene one full-size row at a time: each pixel's colour, alpha and its
/// two fragments' disparities. One per thread.
class SceneRows {
  public:
    explicit SceneRows(const PortraitScene &scene);
    void load(int y);
    std::vector<float> colour, alpha, subject, behind;

    /// Pixel x's foreground and background colours (blur-fusion at its soft edge; the pixel's own elsewhere).
    void edgeColoursAt(int x, float *foreground, float *background) const;

  private:
    const PortraitScene &scene;
    LevelRows subjectRows, behindRows;
    std::unique_ptr<LevelRows> matteRows, nearColourRows, farColourRows, nearMaskRows;
    std::vector<int> zoneColumn;
    std::vector<float> scratch, matteRow, nearColour, farColour, nearMask;
    int y = 0;
};

/// Builds the scene: the measured disparity refined and its edges shared by
/// colour, the matte's subject made one plane, or without depth the matte's
/// layered estimate (the subject in front, the rest far, the ground under the
/// subject receding from its feet).
/// `orientation`: the photo's EXIF orientation (1-8), the pixels being stored: the ground lies below
/// the subject as the photo is seen. `refined`: an earlier render's edge-true depth of the same scene
/// (at its own working size), used instead of refining `disparity` on this photo's edges; `keep` (may
/// be null) receives the one made. `leaveGroundOut`: with measured depth, the surface the matte's
/// subject stands on is left out of the matte (matte_ground.hpp; for a new background or a cut-out
/// from a matte made by a portrait-matting network, which takes the subject to go on out of the frame).
PortraitScene buildScene(const cv::Mat &photo, const cv::Mat &matte, const cv::Mat &disparity, int orientation, StepClock &step,
                         const cv::Mat &refined = cv::Mat(), cv::Mat *keep = nullptr, bool leaveGroundOut = false);

/// Receives a finished full-size row (RGB float 0...1, not yet clamped).
using RowWriter = std::function<void(int y, const float *rgb)>;

/// Depth of field: each fragment blurred by a disc of radius `scale` x
/// (|disparity - focus| - `sharpBand`) (pixels, none within the band), continuous
/// in depth (no seams) and with nearer fragments covering farther ones only
/// across real depth edges; what a blurred front hides is filled from what
/// surrounds it. `gamma` > 1 makes highlights bloom.
void renderDepthOfField(const PortraitScene &scene, float focus, float sharpBand, float scale, float gamma, const RowWriter &write, StepClock &step);

/// Receives a row of the subject: its colour times its share (RGB), and its share of each pixel.
using SubjectRowWriter = std::function<void(int y, const float *colour, const float *share)>;

/// The subject for a replaced or transparent background: the matte where
/// there is one, else what lies at or in front of the focal plane, its edges
/// shared by colour; row by row.
void subjectLayer(const PortraitScene &scene, float focus, const SubjectRowWriter &write);

} // namespace mbx
