// A Gaussian blur approximated by two box blurs: OpenCV 4.6's GaussianBlur on
// float images with a wide kernel costs about ten times as much, and the
// portrait effect's smooth estimates need no more than this.
#pragma once
#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>

namespace mbx {

/// `source` blurred by about a Gaussian of `sigma` pixels into `out` (any channel count).
inline void softBlur(const cv::Mat &source, cv::Mat &out, double sigma) {
    // Two boxes of width w spread as a Gaussian of variance 2 (w^2 - 1) / 12.
    const int width = std::max(1, int(std::lround(std::sqrt(6 * sigma * sigma + 1)))) | 1;
    cv::blur(source, out, cv::Size(width, width), cv::Point(-1, -1), cv::BORDER_REFLECT);
    cv::blur(out, out, cv::Size(width, width), cv::Point(-1, -1), cv::BORDER_REFLECT);
}

} // namespace mbx
