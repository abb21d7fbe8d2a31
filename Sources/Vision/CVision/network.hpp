// Running cv::dnn networks, shared by the matte models, the face detector,
// the face mesh and the pose model: in this process, or in the inference
// process of a batch (MATTEBOX_INFERENCE_SOCKET), which holds each network
// once for all the batch's workers.
#pragma once
#include <cstdint>
#include <opencv2/dnn.hpp>
#include <string>
#include <vector>

namespace mbx {

/// How cv::dnn lays out a network's buffers. Dense-prediction networks
/// (person matting, face parsing: what mbx_cv_model_mattes runs) are
/// encoder-decoders whose skip connections concatenate high-resolution
/// features; cv::dnn's layer fusion makes the concatenated layers write into
/// the concatenation's buffer, which then stays apart from the buffers it
/// reuses. Without fusion MODNet at 512x512 holds 222 MiB instead of 325, its
/// output within 2e-6 and its time the same (700-750 ms of CPU either way);
/// the small detectors and landmark networks keep fusion, which CenterFace
/// needs for its speed (19 ms a run fused, 31 ms not).
enum class NetworkLayout : uint32_t { fused = 0, unfused = 1 };

/// The network in an ONNX file run on one input blob: the named outputs (the
/// default output when `outputs` is empty). `what` names it in errors ("the
/// face mesh"). With MATTEBOX_INFERENCE_SOCKET set, the batch's inference
/// process runs it; a Failure says when that process cannot be reached.
std::vector<cv::Mat> runNetwork(const std::string &path, const cv::Mat &blob, const std::vector<std::string> &outputs,
                                const char *what, NetworkLayout layout = NetworkLayout::fused);

/// Frees this thread's copy of a network it loaded itself: its weights and the working buffers
/// cv::dnn keeps between runs (MODNet's 222 MiB at 512x512, the face parser's 81). The next run reads
/// the file again (MODNet 50 ms, the face parser 85). A no-op where the batch's inference process
/// holds the network for all its workers.
void releaseNetwork(const std::string &path, NetworkLayout layout);

/// How many networks this process has loaded (the inference process reports it).
int loadedNetworkCount();

/// Serves runNetwork requests on a listening Unix socket until the process is
/// ended: one thread per connection, one network per file and layout for all of them,
/// run one at a time (cv::dnn::Net is not safe to run from two threads at once).
void serveInference(int listener);

} // namespace mbx
