// A person's body keypoints from MediaPipe's pose landmark model (BlazePose
// full; `mattebox models install pose` converts it for cv::dnn): where the
// limbs are, to keep the skin matte on them and to check a person matte.
#pragma once
#include <opencv2/core.hpp>
#include <string>
#include <vector>

namespace mbx {

/// The 33 BlazePose keypoints in an image's pixels, each with how likely it is visible (0...1).
struct BodyPose {
    std::vector<cv::Point2f> points;
    std::vector<float> visibility;
    float score = 0;

    enum Keypoint {
        leftShoulder = 11, rightShoulder = 12, leftElbow = 13, rightElbow = 14, leftWrist = 15, rightWrist = 16,
        leftIndex = 19, rightIndex = 20, leftHip = 23, rightHip = 24, leftKnee = 25, rightKnee = 26,
        leftAnkle = 27, rightAnkle = 28, leftFootIndex = 31, rightFootIndex = 32
    };
    bool visible(int keypoint) const { return visibility[size_t(keypoint)] >= 0.5f; }
    /// The arms and legs as thick lines (0/255 at `size`), `thickness` pixels wide.
    cv::Mat limbs(cv::Size size, int thickness) const;
};

/// The pose of the person in `region` (a box about them in an upright 8-bit
/// BGR image; a square about its centre, 1.25 times its longer side, is what
/// the model sees); false when the model finds no person there.
bool findBodyPose(const cv::Mat &colour, const cv::Rect &region, const std::string &model, BodyPose &pose);

} // namespace mbx
