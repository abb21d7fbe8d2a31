// MediaPipe's pose landmark model (BlazePose GHUM full) through cv::dnn: a
// 256 px square about the person, RGB on 0...1, as MediaPipe's pose graph
// feeds it; 39 points of (x, y, z, visibility, presence), the first 33 the body's.
#include "pose.hpp"
#include "bridge.hpp"
#include "network.hpp"
#include <cmath>
#include <opencv2/imgproc.hpp>

namespace mbx {

namespace {
constexpr int poseSide = 256;
float logistic(float value) { return float(1 / (1 + std::exp(-double(value)))); }
} // namespace

bool findBodyPose(const cv::Mat &colour, const cv::Rect &region, const std::string &model, BodyPose &pose) {
    pose = BodyPose();
    if (region.area() <= 0) return false;
    const cv::Point2f centre(region.x + region.width / 2.0f, region.y + region.height / 2.0f);
    const double side = 1.25 * std::max(region.width, region.height), scale = poseSide / side;
    cv::Mat toCrop = (cv::Mat_<double>(2, 3) << scale, 0, poseSide / 2.0 - centre.x * scale, 0, scale, poseSide / 2.0 - centre.y * scale);
    cv::Mat crop;
    cv::warpAffine(colour, crop, toCrop, cv::Size(poseSide, poseSide), cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar::all(0));
    const std::vector<cv::Mat> outputs =
        runNetwork(model, cv::dnn::blobFromImage(crop, 1.0 / 255, cv::Size(), cv::Scalar(), /*swapRB*/ true, false),
                   {"Identity", "Identity_1"}, "the pose model");
    if (outputs.size() != 2 || outputs[0].total() != 39 * 5 || outputs[1].total() != 1)
        throw Failure{model + ": not MediaPipe's pose landmark model (39 points of 5 values and a pose score)"};
    pose.score = outputs[1].at<float>(0);
    if (pose.score < 0.5f) return false;
    const float *values = outputs[0].ptr<float>();
    std::vector<cv::Point2f> inCrop;
    for (int i = 0; i < 33; i++) {
        inCrop.emplace_back(values[5 * i], values[5 * i + 1]);
        pose.visibility.push_back(logistic(values[5 * i + 3]));
    }
    cv::Mat back;
    cv::invertAffineTransform(toCrop, back);
    cv::transform(inCrop, pose.points, back);
    return true;
}

cv::Mat BodyPose::limbs(cv::Size size, int thickness) const {
    cv::Mat out = cv::Mat::zeros(size, CV_8U);
    const int chains[4][4] = {{leftShoulder, leftElbow, leftWrist, leftIndex},
                              {rightShoulder, rightElbow, rightWrist, rightIndex},
                              {leftHip, leftKnee, leftAnkle, leftFootIndex},
                              {rightHip, rightKnee, rightAnkle, rightFootIndex}};
    for (const auto &chain : chains)
        for (int k = 0; k + 1 < 4; k++)
            if (visible(chain[k]) && visible(chain[k + 1]))
                cv::line(out, points[size_t(chain[k])], points[size_t(chain[k + 1])], cv::Scalar(255), thickness, cv::LINE_8);
    return out;
}

} // namespace mbx
