// Phone depth made edge-true: a bilateral solver that moves a coarse depth
// map's edges onto the photo's, and the two sides of each depth edge as a
// soft matte of the photo's own colours.
#pragma once
#include <opencv2/core.hpp>

namespace mbx {

/// How far the bilateral solver's grid reaches: pixels closer than `spatial`
/// (in the guide's pixels) and `luma` (on a 0...1 scale) share a vertex.
/// `smoothness` weighs the smooth solution against the confident targets.
struct BilateralSolverSettings {
    float spatial = 8;
    float luma = 0.08f;
    float smoothness = 16;
    int iterations = 25;
};

/// Barron & Poole's bilateral solver (ECCV 2016) on a dense bilateral grid of
/// (x, y, luma) with trilinear splatting and slicing, so the result is smooth
/// wherever the photo is: the values of `target` (CV_32F) where `confidence`
/// (CV_32F, 0...1) is high, spread along the guide's edges (`luma`, CV_32F
/// 0...1, the same size) where it is low.
cv::Mat solveBilateral(const cv::Mat &luma, const cv::Mat &target, const cv::Mat &confidence, const BilateralSolverSettings &settings);

/// A coarse disparity (CV_32F 0...1, any size) at the guide's size with its
/// edges on the guide's (RGB CV_32FC3 0...1): trusted away from its own edges,
/// which a phone puts a few of its pixels off the photo's, and nowhere in
/// `unsure` (CV_8U at the guide's size, may be empty: a matte's edge band).
cv::Mat refineDisparity(const cv::Mat &guide, const cv::Mat &coarse, const cv::Mat &unsure);

/// Where a disparity map (at the guide's size) jumps by more than `step`:
/// `band` (CV_8U) marks the pixels near a jump, `nearSide` and `farSide` hold
/// the disparity on either side, and `nearColour`/`farColour` the photo's
/// smooth colour on either side, from which each pixel's share of the near
/// side is worked out at full size (`nearShare`).
struct DepthEdges {
    cv::Mat band, nearSide, farSide, nearColour, farColour;
    cv::Mat nearMask; // CV_32F: 1 on the near side, 0 on the far side of each edge (softened), 1 elsewhere
    static DepthEdges find(const cv::Mat &guide, const cv::Mat &disparity, float step);
};

/// A pixel's share of the near side's colour against the far side's (the
/// projection of its colour onto the line between them); where the two sides'
/// colours are alike, the side its depth gave (`fallback`).
float nearShare(const float *pixel, const float *nearColour, const float *farColour, float fallback);

} // namespace mbx
