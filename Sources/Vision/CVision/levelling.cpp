// Turning the working frame about a tilted face so its eyes are level: the
// hair, skin and mouth layouts are laid out for an upright face.
#include "matte_steps.hpp"
#include <cmath>
#include <opencv2/imgproc.hpp>

namespace mbx {

LevelledFrame LevelledFrame::make(cv::Size working, const cv::Rect &face, double rollDegrees) {
    LevelledFrame frame;
    frame.workingSize = frame.levelledSize = working;
    frame.forward = cv::Mat::eye(2, 3, CV_64F);
    // A face within a few degrees of level is what the layouts were measured on.
    if (std::abs(rollDegrees) < 4) return frame;
    const cv::Point2f centre(face.x + face.width / 2.0f, face.y + face.height / 2.0f);
    // Counter-clockwise (as seen) by the roll: the eye line comes level.
    frame.forward = cv::getRotationMatrix2D(centre, rollDegrees, 1.0);
    std::vector<cv::Point2f> corners{{0, 0}, {float(working.width), 0}, {0, float(working.height)},
                                     {float(working.width), float(working.height)}}, turned;
    cv::transform(corners, turned, frame.forward);
    const cv::Rect2f bounds = cv::boundingRect(turned);
    frame.forward.at<double>(0, 2) -= bounds.x;
    frame.forward.at<double>(1, 2) -= bounds.y;
    frame.levelledSize = cv::Size(int(std::ceil(bounds.width)), int(std::ceil(bounds.height)));
    frame.turned = true;
    return frame;
}

cv::Mat LevelledFrame::level(const cv::Mat &image, int interpolation, int border) const {
    if (!turned) return image;
    cv::Mat out;
    cv::warpAffine(image, out, forward, levelledSize, interpolation, border, cv::Scalar::all(0));
    return out;
}

cv::Mat LevelledFrame::back(const cv::Mat &matte) const {
    if (!turned) return matte;
    cv::Mat out;
    cv::warpAffine(matte, out, forward, workingSize, cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_CONSTANT,
                   cv::Scalar::all(0));
    return out;
}

cv::Rect LevelledFrame::box(const cv::Rect &working) const {
    if (!turned) return working;
    std::vector<cv::Point2f> centre{{working.x + working.width / 2.0f, working.y + working.height / 2.0f}}, moved;
    cv::transform(centre, moved, forward);
    return cv::Rect(int(std::lround(moved[0].x - working.width / 2.0)), int(std::lround(moved[0].y - working.height / 2.0)),
                    working.width, working.height);
}

} // namespace mbx
