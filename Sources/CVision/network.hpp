// Running cv::dnn networks, shared by the matte models, the face detector,
// the face mesh and the pose model: in this process, or in the inference
// process of a batch (MATTEBOX_INFERENCE_SOCKET), which holds each network
// once for all the batch's workers.
#pragma once
#include <opencv2/dnn.hpp>
#include <string>
#include <vector>

namespace mbx {

/// The network in an ONNX file run on one input blob: the named outputs (the
/// default output when `outputs` is empty). `what` names it in errors ("the
/// face mesh"). With MATTEBOX_INFERENCE_SOCKET set, the batch's inference
/// process runs it; a Failure says when that process cannot be reached.
std::vector<cv::Mat> runNetwork(const std::string &path, const cv::Mat &blob, const std::vector<std::string> &outputs,
                                const char *what);

/// How many networks this process has loaded (the inference process reports it).
int loadedNetworkCount();

/// Serves runNetwork requests on a listening Unix socket until the process is
/// ended: one thread per connection, one network per file for all of them,
/// run one at a time (cv::dnn::Net is not safe to run from two threads at once).
void serveInference(int listener);

} // namespace mbx
