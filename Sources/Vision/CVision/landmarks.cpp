// Face landmarks: MediaPipe's face mesh (468 points; `mattebox models install
// facemesh` converts it for cv::dnn) on a 192 px square about the face,
// turned so the eyes are level. As MediaPipe tracks a face, the first crop
// comes from the detector's box and the second from the first pass's points
// (their extent times 1.5, turned by the eye corners), which is the crop the
// network was trained on.
#include "landmarks.hpp"
#include "bridge.hpp"
#include "network.hpp"
#include <cmath>
#include <opencv2/imgproc.hpp>

namespace mbx {

namespace mesh {
// Index lists of the canonical face mesh (mediapipe/python/solutions/face_mesh_connections.py), each a closed outline.
const std::vector<int> oval{10,  338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377,
                            152, 148, 176, 149, 150, 136, 172, 58,  132, 93,  234, 127, 162, 21,  54,  103, 67,  109};
const std::vector<int> lipsOuter{61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291, 409, 270, 269, 267, 0, 37, 39, 40, 185};
const std::vector<int> lipsInner{78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308, 415, 310, 311, 312, 13, 82, 81, 80, 191};
const std::vector<int> rightEye{33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246};
const std::vector<int> leftEye{263, 249, 390, 373, 374, 380, 381, 382, 362, 398, 384, 385, 386, 387, 388, 466};
const std::vector<int> rightBrow{46, 53, 52, 65, 55, 107, 66, 105, 63, 70};
const std::vector<int> leftBrow{276, 283, 282, 295, 285, 336, 296, 334, 293, 300};
const std::vector<int> cheeks{50, 101, 205, 280, 330, 425};
const std::vector<int> forehead{151, 108, 337, 9};
} // namespace mesh

namespace {

constexpr int meshSide = 192;

/// The crop's transform: image -> a meshSide square centred on `centre`,
/// `side` image pixels wide, turned counter-clockwise by `rollDegrees`.
cv::Mat cropTransform(cv::Point2f centre, double side, double rollDegrees) {
    cv::Mat toCrop = cv::getRotationMatrix2D(centre, rollDegrees, meshSide / side);
    toCrop.at<double>(0, 2) += meshSide / 2.0 - centre.x;
    toCrop.at<double>(1, 2) += meshSide / 2.0 - centre.y;
    return toCrop;
}

/// One pass of the mesh: its points in image pixels and the face score (0...1).
float runMesh(const cv::Mat &colour, const cv::Mat &toCrop, const std::string &model, std::vector<cv::Point2f> &points) {
    cv::Mat crop;
    cv::warpAffine(colour, crop, toCrop, cv::Size(meshSide, meshSide), cv::INTER_LINEAR, cv::BORDER_CONSTANT, cv::Scalar::all(0));
    // RGB on 0...1, as MediaPipe's face landmark graph feeds it.
    const std::vector<cv::Mat> outputs =
        runNetwork(model, cv::dnn::blobFromImage(crop, 1.0 / 255, cv::Size(), cv::Scalar(), /*swapRB*/ true, false),
                   {"conv2d_21", "conv2d_31"}, "the face mesh");
    if (outputs.size() != 2 || outputs[0].total() != 468 * 3 || outputs[1].total() != 1)
        throw Failure{model + ": not MediaPipe's face mesh (468 points and a face score)"};
    const float *values = outputs[0].ptr<float>();
    std::vector<cv::Point2f> inCrop(468);
    for (int i = 0; i < 468; i++) inCrop[size_t(i)] = cv::Point2f(values[3 * i], values[3 * i + 1]);
    cv::Mat back;
    cv::invertAffineTransform(toCrop, back);
    cv::transform(inCrop, points, back);
    return float(1 / (1 + std::exp(-double(outputs[1].at<float>(0)))));
}

} // namespace

bool findFaceLandmarks(const cv::Mat &colour, const cv::Rect &face, double rollDegrees, const std::string &model,
                       FaceLandmarks &landmarks) {
    landmarks = FaceLandmarks();
    // First pass: the detector's box. A Haar-like box reaches from the brows
    // to the chin, as BlazeFace's does; MediaPipe widens that by 1.5.
    cv::Point2f centre(face.x + face.width / 2.0f, face.y + face.height / 2.0f);
    double side = 1.5 * std::max(face.width, face.height), roll = rollDegrees;
    std::vector<cv::Point2f> points;
    float score = 0;
    for (int pass = 0; pass < 2; pass++) {
        score = runMesh(colour, cropTransform(centre, side, roll), model, points);
        if (score < 0.5) return false;
        // The next crop: the points' extent along the eye line (outer eye corners 33 and 263).
        const cv::Point2f eyes = points[263] - points[33];
        roll = std::atan2(eyes.y, eyes.x) * 180 / CV_PI;
        cv::Mat level = cv::getRotationMatrix2D(cv::Point2f(0, 0), roll, 1.0);
        std::vector<cv::Point2f> levelled;
        cv::transform(points, levelled, level);
        const cv::Rect2f extent = cv::boundingRect(levelled);
        cv::Mat unlevel;
        cv::invertAffineTransform(level, unlevel);
        std::vector<cv::Point2f> middle{{extent.x + extent.width / 2, extent.y + extent.height / 2}}, moved;
        cv::transform(middle, moved, unlevel);
        centre = moved[0];
        side = 1.5 * std::max(extent.width, extent.height);
    }
    landmarks.points = points;
    landmarks.score = score;
    landmarks.rollDegrees = roll;
    return true;
}

std::vector<cv::Point> FaceLandmarks::outline(const std::vector<int> &indices) const {
    std::vector<cv::Point> out;
    out.reserve(indices.size());
    for (int i : indices) out.emplace_back(int(std::lround(points[size_t(i)].x)), int(std::lround(points[size_t(i)].y)));
    return out;
}

cv::Mat FaceLandmarks::fill(const std::vector<int> &indices, cv::Size size) const {
    cv::Mat mask = cv::Mat::zeros(size, CV_8U);
    std::vector<std::vector<cv::Point>> polygons{outline(indices)};
    cv::fillPoly(mask, polygons, cv::Scalar(255), cv::LINE_8);
    return mask;
}

double FaceLandmarks::width() const { return cv::norm(points[454] - points[234]); }

double FaceLandmarks::height() const { return cv::norm(points[152] - points[10]); }

FaceLandmarks FaceLandmarks::transformed(const cv::Mat &affine) const {
    FaceLandmarks out = *this;
    cv::transform(points, out.points, affine);
    return out;
}

} // namespace mbx
