// Round neighbourhoods for binary masks: the structuring element the mattes
// and the portrait effect close, open and grow their masks with, and a
// growth by a large disc whose cost does not depend on its size.
#pragma once
#include <algorithm>
#include <opencv2/imgproc.hpp>

namespace mbx {

/// A round structuring element reaching `radius` pixels each way (at least 1).
inline cv::Mat disc(int radius) {
    const int side = 2 * std::max(1, radius) + 1;
    return cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(side, side));
}

/// The pixels within `radius` of a binary mask: a dilation by a round disc,
/// from the distance transform. A dilation's cost grows with its element (a
/// disc of 150 pixels on a 768x1024 mask: 450 ms against 4), the transform's
/// does not; the two differ only where the element's rounded rows reach
/// half a pixel beyond the circle.
inline cv::Mat grownByDisc(const cv::Mat &mask, double radius) {
    cv::Mat distance;
    cv::distanceTransform(~mask, distance, cv::DIST_L2, cv::DIST_MASK_PRECISE);
    return distance <= radius;
}

} // namespace mbx
