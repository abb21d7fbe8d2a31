// Phone depth made edge-true before it is rendered with. A phone's disparity
// is small (576x768 or 480x640 on an iPhone, 8-bit) and its edges sit a few of
// its pixels off the photo's; blurring by it as it is bands the subject with
// background colours and cuts straight, blocky edges through fur and glass.
// The depth is trusted away from its own edges and solved for near them with
// the bilateral solver, so its edges move onto the photo's; then at each
// remaining depth edge every pixel is shared between the near and the far side
// by its colour, so the soft edges of the photo (fur, hair, a lens's own blur)
// stay soft in the render.
#include "depth_refine.hpp"
#include "discs.hpp"
#include "soft_blur.hpp"
#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>

namespace mbx {

cv::Mat refineDisparity(const cv::Mat &guide, const cv::Mat &coarse, const cv::Mat &unsure) {
    const cv::Size size = guide.size();
    // How far the coarse map's edges may be off: a few of its own pixels.
    const int reach = std::max(2, int(std::lround(std::max(coarse.cols, coarse.rows) / 200.0)));
    cv::Mat high, low, spread;
    cv::dilate(coarse, high, disc(reach));
    cv::erode(coarse, low, disc(reach));
    spread = high - low;
    // Trusted where the depth is flat around (a change of 0.04 of the range halves nothing; 0.08 leaves 2 %).
    cv::Mat confidence;
    cv::multiply(spread, spread, confidence, 1.0 / (0.04 * 0.04));
    cv::exp(-confidence, confidence);
    cv::Mat target, trust;
    cv::resize(coarse, target, size, 0, 0, cv::INTER_LINEAR);
    cv::resize(confidence, trust, size, 0, 0, cv::INTER_LINEAR);
    if (!unsure.empty()) trust.setTo(0, unsure);
    cv::Mat luma;
    cv::cvtColor(guide, luma, cv::COLOR_RGB2GRAY);
    BilateralSolverSettings settings;
    settings.spatial = std::max(4.0f, std::max(size.width, size.height) / 128.0f);
    cv::Mat solved = solveBilateral(luma, target, trust, settings);
    // An edge moves by no more than the coarse map's own error: each pixel stays within the depths
    // found around it there. Where colour and depth disagree (glass, which shows the background's
    // colours at the subject's depth), the phone's depth wins.
    cv::Mat lowest, highest;
    cv::resize(low, lowest, size, 0, 0, cv::INTER_LINEAR);
    cv::resize(high, highest, size, 0, 0, cv::INTER_LINEAR);
    const double soften = double(size.width) / coarse.cols * reach / 2;
    softBlur(lowest, lowest, soften);
    softBlur(highest, highest, soften);
    return cv::min(cv::max(solved, lowest), highest);
}

DepthEdges DepthEdges::find(const cv::Mat &guide, const cv::Mat &disparity, float step) {
    DepthEdges edges;
    const int reach = std::max(2, int(std::lround(std::max(disparity.cols, disparity.rows) / 256.0)));
    cv::dilate(disparity, edges.nearSide, disc(reach));
    cv::erode(disparity, edges.farSide, disc(reach));
    edges.band = (edges.nearSide - edges.farSide) > step;
    // Which side each pixel of the band lies on by its depth, and the colour of each side around it.
    cv::Mat middle = 0.5f * (edges.nearSide + edges.farSide), near(disparity.size(), CV_32F, cv::Scalar(1));
    cv::Mat nearer = disparity > middle;
    near.setTo(0, edges.band & ~nearer);
    if (cv::countNonZero(edges.band) == 0) {
        // No edge: every pixel is one fragment, on the near side of nothing.
        edges.nearColour = edges.farColour = cv::Mat::zeros(disparity.size(), CV_32FC3);
        edges.nearMask = near;
        return edges;
    }
    const double sigma = 1.5 * reach;
    // Each side's colours and weight in one image (colour x weight, weight), blurred, divided.
    cv::Mat nearPack(disparity.size(), CV_32FC4), farPack(disparity.size(), CV_32FC4);
    for (int y = 0; y < disparity.rows; ++y) {
        const float *g = guide.ptr<float>(y), *n = near.ptr<float>(y);
        float *np = nearPack.ptr<float>(y), *fp = farPack.ptr<float>(y);
        for (int x = 0; x < disparity.cols; ++x) {
            const float w = n[x], v = 1 - w;
            for (int c = 0; c < 3; ++c) {
                np[4 * x + c] = g[3 * x + c] * w;
                fp[4 * x + c] = g[3 * x + c] * v;
            }
            np[4 * x + 3] = w;
            fp[4 * x + 3] = v;
        }
    }
    softBlur(nearPack, nearPack, sigma);
    softBlur(farPack, farPack, sigma);
    edges.nearColour.create(disparity.size(), CV_32FC3);
    edges.farColour.create(disparity.size(), CV_32FC3);
    for (int y = 0; y < disparity.rows; ++y) {
        const float *np = nearPack.ptr<float>(y), *fp = farPack.ptr<float>(y);
        float *nc = edges.nearColour.ptr<float>(y), *fc = edges.farColour.ptr<float>(y);
        for (int x = 0; x < disparity.cols; ++x) {
            const float nw = 1 / std::max(np[4 * x + 3], 1e-4f), fw = 1 / std::max(fp[4 * x + 3], 1e-4f);
            for (int c = 0; c < 3; ++c) {
                nc[3 * x + c] = np[4 * x + c] * nw;
                fc[3 * x + c] = fp[4 * x + c] * fw;
            }
        }
    }
    softBlur(near, edges.nearMask, sigma / 2);
    return edges;
}

float nearShare(const float *pixel, const float *nearColour, const float *farColour, float fallback) {
    float along = 0, length = 0;
    for (int c = 0; c < 3; ++c) {
        const float d = nearColour[c] - farColour[c];
        along += (pixel[c] - farColour[c]) * d;
        length += d * d;
    }
    // Sides whose colours are close say little (the same wall on both sides, or glass, which shows
    // the background's colours at its own depth): then the depth's side decides. Colours 0.1 apart
    // (25 levels) count half.
    const float trust = length / (length + 0.01f);
    const float share = length > 1e-8f ? along / length : fallback;
    return std::clamp(trust * share + (1 - trust) * fallback, 0.0f, 1.0f);
}

} // namespace mbx
