#include "rectification.hpp"
#include "bridge.hpp"
#include <cmath>
#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

namespace mbx {

Rectification Rectification::load(const std::string &path) {
    cv::FileStorage file;
    try {
        file.open(path, cv::FileStorage::READ);
    } catch (const cv::Exception &) {
        throw Failure{path + ": not a calibration file OpenCV can read"};
    }
    if (!file.isOpened()) throw Failure{path + ": cannot open the calibration file"};
    Rectification r;
    cv::Mat K1, D1, K2, D2, R1, R2, P1, P2;
    int width = 0, height = 0;
    file["image_width"] >> width;
    file["image_height"] >> height;
    file["K1"] >> K1; file["D1"] >> D1; file["K2"] >> K2; file["D2"] >> D2;
    file["R1"] >> R1; file["R2"] >> R2; file["P1"] >> P1; file["P2"] >> P2;
    if (width <= 0 || height <= 0 || K1.empty() || K2.empty() || R1.empty() || R2.empty() || P1.empty() || P2.empty())
        throw Failure{path + ": calibration lacks image_width/height, K1, K2, R1, R2, P1 or P2 (make it with mattebox calibrate)"};
    r.imageSize = cv::Size(width, height);
    cv::initUndistortRectifyMap(K1, D1, R1, P1, r.imageSize, CV_32FC1, r.leftMapX, r.leftMapY);
    cv::initUndistortRectifyMap(K2, D2, R2, P2, r.imageSize, CV_32FC1, r.rightMapX, r.rightMapY);
    r.focalPx = P1.at<double>(0, 0);
    r.baseline = std::abs(P2.at<double>(0, 3) / P2.at<double>(0, 0));
    return r;
}

void Rectification::apply(cv::Mat &left, cv::Mat &right) const {
    if (left.size() != imageSize)
        throw Failure{"the views are " + std::to_string(left.cols) + "x" + std::to_string(left.rows) +
                      " but the calibration is for " + std::to_string(imageSize.width) + "x" +
                      std::to_string(imageSize.height)};
    cv::Mat l, r;
    cv::remap(left, l, leftMapX, leftMapY, cv::INTER_LINEAR);
    cv::remap(right, r, rightMapX, rightMapY, cv::INTER_LINEAR);
    left = l;
    right = r;
}

} // namespace mbx
