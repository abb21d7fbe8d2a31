// A stereo calibration file turned into rectification maps.
#pragma once
#include <opencv2/core.hpp>
#include <string>

namespace mbx {

/// Rectifies a stereo pair with the maps from a calibration file written by
/// mbx_cv_calibrate_stereo, so matching can search along rows.
struct Rectification {
    cv::Size imageSize;
    cv::Mat leftMapX, leftMapY, rightMapX, rightMapY;
    double focalPx = 0;
    double baseline = 0;

    static Rectification load(const std::string &path);
    /// Rectifies both views in place; they must have the calibrated size.
    void apply(cv::Mat &left, cv::Mat &right) const;
};

} // namespace mbx
