// Loaded cv::dnn networks, shared by the matte models and the face detector.
#pragma once
#include <opencv2/dnn.hpp>
#include <string>

namespace mbx {

/// The network in an ONNX file, loaded once per thread and file
/// (cv::dnn::Net is not safe to run from two threads at once); a Failure
/// naming the file when it cannot be loaded.
cv::dnn::Net &loadedNetwork(const std::string &path);

} // namespace mbx
