// The depth a portrait matte alone implies: the subject in front, the rest
// far behind it, and the ground the subject stands on receding from its feet.
#pragma once
#include <opencv2/core.hpp>

namespace mbx {

/// A disparity for everything but the subject (0 far ... 1 at the subject's
/// plane; the ground in front of the feet above 1) and what was done about
/// the ground, for the photo's notes (nullptr: nothing to say).
struct GroundEstimate {
    cv::Mat disparity;
    const char *note = nullptr;
};

/// From the photo (RGB CV_32FC3 0...1) and the subject's matte (CV_32F, the
/// same size; may be empty): where the subject's lowest part touches ground
/// that shows below and around it, that ground (the region of the contact's
/// colours joined to it) lies on a plane through the contact, its disparity
/// falling off with height in the frame as a ground plane's does (0 two
/// subject heights above the feet), and fading to far between a quarter and
/// half a subject height above them; everything else is far (0).
GroundEstimate estimateGround(const cv::Mat &photo, const cv::Mat &subject);

} // namespace mbx
