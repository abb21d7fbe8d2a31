// Push-pull filling: an image completed where it has little weight from the
// weighted pixels around it.
#pragma once
#include <opencv2/core.hpp>

namespace mbx {

/// `premultiplied` (colour x weight, CV_32F, any channel count) completed
/// from coarser levels where `weight` (CV_32F) is below 1. With `ownWeight`
/// false every pixel takes what surrounds it only (its own value left out):
/// the colour for what a pixel lacks, to be added as (1 - weight) x it.
cv::Mat pushPullFill(const cv::Mat &premultiplied, const cv::Mat &weight, bool ownWeight);

/// `values` (CV_32F, one channel) kept where `known` (CV_8U or CV_32F 0...1)
/// is set and carried into the rest from the nearest known values.
cv::Mat extendFrom(const cv::Mat &values, const cv::Mat &known);

} // namespace mbx
