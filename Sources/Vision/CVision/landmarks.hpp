// Face landmarks from MediaPipe's face mesh: the face's parts as outlines,
// which the semantic mattes are drawn from when the model is installed.
#pragma once
#include <opencv2/core.hpp>
#include <string>
#include <vector>

namespace mbx {

/// The 468 points of MediaPipe's canonical face mesh, in an image's pixels.
struct FaceLandmarks {
    std::vector<cv::Point2f> points;
    float score = 0;          // the mesh's own face score, 0...1
    double rollDegrees = 0;   // the eye line's turn clockwise from level

    /// The outline through these mesh points, in whole pixels.
    std::vector<cv::Point> outline(const std::vector<int> &indices) const;
    /// That outline filled: 0/255 at `size`.
    cv::Mat fill(const std::vector<int> &indices, cv::Size size) const;
    /// Cheek to cheek (points 234, 454) and forehead to chin (10, 152).
    double width() const;
    double height() const;
    /// The points moved by a 2x3 affine transform (into a levelled frame).
    FaceLandmarks transformed(const cv::Mat &affine) const;
};

/// Outlines of the face's parts as index lists into the mesh.
namespace mesh {
extern const std::vector<int> oval, lipsOuter, lipsInner, rightEye, leftEye, rightBrow, leftBrow;
/// Points in the middle of the cheeks and on the forehead, where skin colour is sampled.
extern const std::vector<int> cheeks, forehead;
} // namespace mesh

/// The mesh of the face in this box (a Haar-like square, turned by
/// rollDegrees) of an upright 8-bit BGR image; false when the mesh does not
/// take it for a face. `model` is the converted face_landmark ONNX file.
bool findFaceLandmarks(const cv::Mat &colour, const cv::Rect &face, double rollDegrees, const std::string &model,
                       FaceLandmarks &landmarks);

} // namespace mbx
