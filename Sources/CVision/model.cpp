// Mattes from a segmentation model the user supplies, run by cv::dnn. No
// weights ship with Mattebox (none may be downloaded); a person-matting or
// face-parsing network exported to ONNX replaces the classical methods when
// its path is given. The photo is turned upright, cropped around the face
// when the model expects a face, normalised, run, and the class
// probabilities are pasted back as soft mattes.
#include "bridge.hpp"
#include "portrait.hpp"
#include <cmath>
#include <map>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

namespace mbx {

namespace {

/// One loaded network per thread and file: cv::dnn::Net is not safe to run
/// from two threads at once.
cv::dnn::Net &network(const std::string &path) {
    thread_local std::map<std::string, cv::dnn::Net> networks;
    auto found = networks.find(path);
    if (found != networks.end()) return found->second;
    cv::dnn::Net net;
    try {
        net = cv::dnn::readNetFromONNX(path);
    } catch (const cv::Exception &exception) {
        throw Failure{path + ": cannot load the model: " + exception.err};
    }
    if (net.empty()) throw Failure{path + ": cannot load the model"};
    net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    return networks.emplace(path, net).first->second;
}

/// The model's input: planes of (v / 255 - mean) / std in the order it wants.
cv::Mat inputBlob(const cv::Mat &bgr, const mbx_cv_model_options &model) {
    cv::Mat resized, floats;
    cv::resize(bgr, resized, cv::Size(model.input_width, model.input_height), 0, 0, cv::INTER_AREA);
    if (!model.bgr) cv::cvtColor(resized, resized, cv::COLOR_BGR2RGB);
    resized.convertTo(floats, CV_32F, 1.0 / 255.0);
    std::vector<cv::Mat> planes;
    cv::split(floats, planes);
    for (int c = 0; c < 3; c++) {
        float spread = model.std[c] != 0 ? model.std[c] : 1;
        planes[c] = (planes[c] - model.mean[c]) / spread;
    }
    cv::merge(planes, floats);
    return cv::dnn::blobFromImage(floats); // HWC float -> 1x3xHxW, no further scaling
}

/// Per-class probabilities, each H x W float: softmax over the channels,
/// unless they already are probabilities; one channel is a matte in 0...1.
std::vector<cv::Mat> probabilities(const cv::Mat &output, const std::string &path) {
    if (output.dims != 4 || output.size[0] != 1)
        throw Failure{path + ": the model's output is not one N x C x H x W tensor"};
    const int channels = output.size[1], height = output.size[2], width = output.size[3];
    std::vector<cv::Mat> scores;
    for (int c = 0; c < channels; c++)
        scores.emplace_back(height, width, CV_32F, const_cast<float *>(output.ptr<float>(0, c)));
    double low = 0, high = 0;
    cv::minMaxLoc(output.reshape(1, 1), &low, &high);
    const bool unit = low >= 0 && high <= 1;
    std::vector<cv::Mat> result;
    if (channels == 1) {
        cv::Mat p = scores[0].clone();
        if (!unit) {
            cv::exp(-p, p);
            p = 1.0 / (1.0 + p);
        }
        result.push_back(p);
        return result;
    }
    cv::Mat sum = cv::Mat::zeros(height, width, CV_32F);
    for (auto &s : scores) sum += s;
    double sumLow = 0, sumHigh = 0;
    cv::minMaxLoc(sum, &sumLow, &sumHigh);
    if (unit && sumLow > 0.99 && sumHigh < 1.01) {
        for (auto &s : scores) result.push_back(s.clone());
        return result;
    }
    cv::Mat top = scores[0].clone();
    for (auto &s : scores) top = cv::max(top, s);
    cv::Mat total = cv::Mat::zeros(height, width, CV_32F);
    for (auto &s : scores) {
        cv::Mat e;
        cv::exp(s - top, e);
        total += e;
        result.push_back(e);
    }
    for (auto &r : result) r /= total;
    return result;
}

/// The region the model sees, in the upright working frame.
cv::Rect modelRegion(const cv::Size &frame, const cv::Rect &face, double crop) {
    cv::Rect whole(0, 0, frame.width, frame.height);
    if (crop <= 0) return whole;
    const int side = int(std::lround(crop * face.width));
    cv::Point centre(face.x + face.width / 2, face.y + face.height / 2);
    cv::Rect region = cv::Rect(centre.x - side / 2, centre.y - side / 2, side, side) & whole;
    if (region.area() <= 0) throw Failure{"the face lies outside the photo"};
    return region;
}

} // namespace

} // namespace mbx

extern "C" int mbx_cv_model_mattes(const mbx_cv_image *image, const mbx_cv_matte_options *options, mbx_cv_rect face,
                                   const mbx_cv_model_options *model, mbx_cv_model_output *outputs, int output_count,
                                   mbx_cv_error *error) {
    return mbx::guarded(error, [&] {
        if (!image || !options || !model || !model->path || (!outputs && output_count > 0))
            throw mbx::Failure{"missing argument"};
        const std::string path = model->path;
        if (model->input_width <= 0 || model->input_height <= 0 || model->input_width > 4096 || model->input_height > 4096)
            throw mbx::Failure{path + ": the model's input size must be between 1 and 4096"};
        mbx::WorkingFrame frame = mbx::WorkingFrame::make(*image, *options);
        cv::Rect region = mbx::modelRegion(frame.colour.size(), frame.toWorking(face), model->crop);
        cv::dnn::Net &net = mbx::network(path);
        net.setInput(mbx::inputBlob(frame.colour(region), *model));
        cv::Mat output;
        try {
            output = net.forward();
        } catch (const cv::Exception &exception) {
            throw mbx::Failure{path + ": running the model failed: " + exception.err};
        }
        std::vector<cv::Mat> classes = mbx::probabilities(output, path);
        for (int i = 0; i < output_count; i++) {
            cv::Mat sum = cv::Mat::zeros(classes[0].size(), CV_32F);
            for (int k = 0; k < outputs[i].class_count; k++) {
                int c = outputs[i].classes[k];
                if (c < 0 || c >= int(classes.size()))
                    throw mbx::Failure{path + ": class " + std::to_string(c) + " asked for, but the model gives " +
                                       std::to_string(classes.size()) + " (0..." + std::to_string(classes.size() - 1) + ")"};
                sum += classes[c];
            }
            cv::Mat matte8, resized;
            sum.convertTo(matte8, CV_8U, 255); // saturates above 1
            cv::resize(matte8, resized, region.size(), 0, 0, cv::INTER_LINEAR);
            cv::Mat full = cv::Mat::zeros(frame.colour.size(), CV_8U);
            resized.copyTo(full(region));
            mbx::writePlane(full, frame.orientation, outputs[i].plane);
        }
    });
}
