// Push-pull filling (Gortler et al. 1996): where an image has little or no
// weight it takes the weighted average of what surrounds it, from ever
// coarser levels of a pyramid, so a region hidden behind something gets
// plausible content of its own and never the hider's.
#include "push_pull.hpp"
#include <algorithm>
#include <opencv2/imgproc.hpp>

namespace mbx {

namespace {

cv::Mat half(const cv::Mat &image) {
    cv::Mat out;
    cv::resize(image, out, cv::Size((image.cols + 1) / 2, (image.rows + 1) / 2), 0, 0, cv::INTER_AREA);
    return out;
}

/// Finer level = its premultiplied colour, topped up to full weight from the
/// coarser filled level (or, without its own, the coarser level alone).
cv::Mat compose(const cv::Mat &premultiplied, const cv::Mat &weight, const cv::Mat &coarser, bool own) {
    cv::Mat up;
    cv::resize(coarser, up, premultiplied.size(), 0, 0, cv::INTER_LINEAR);
    if (!own) return up;
    const int n = premultiplied.channels();
    cv::parallel_for_(cv::Range(0, up.rows), [&](const cv::Range &range) {
        for (int y = range.start; y < range.end; ++y) {
            const float *p = premultiplied.ptr<float>(y), *w = weight.ptr<float>(y);
            float *o = up.ptr<float>(y);
            for (int x = 0; x < up.cols; ++x) {
                if (w[x] >= 1) {
                    for (int c = 0; c < n; ++c) o[x * n + c] = p[x * n + c] / w[x];
                } else {
                    const float rest = 1 - std::max(w[x], 0.0f);
                    for (int c = 0; c < n; ++c) o[x * n + c] = p[x * n + c] + rest * o[x * n + c];
                }
            }
        }
    });
    return up;
}

} // namespace

cv::Mat pushPullFill(const cv::Mat &premultiplied, const cv::Mat &weight, bool ownWeight) {
    CV_Assert(premultiplied.depth() == CV_32F && weight.type() == CV_32F && premultiplied.size() == weight.size());
    std::vector<cv::Mat> colours{premultiplied}, weights{weight};
    while (std::max(colours.back().cols, colours.back().rows) > 1) {
        colours.push_back(half(colours.back()));
        weights.push_back(half(weights.back()));
    }
    // The coarsest level normalised, then each finer level composed over the one below.
    cv::Mat filled = colours.back().clone();
    const float top = std::max(weights.back().at<float>(0, 0), 1e-6f);
    filled /= top;
    for (int level = int(colours.size()) - 2; level >= 1; --level) filled = compose(colours[level], weights[level], filled, true);
    return compose(premultiplied, weight, filled, ownWeight);
}

cv::Mat extendFrom(const cv::Mat &values, const cv::Mat &known) {
    cv::Mat weight;
    known.convertTo(weight, CV_32F, known.depth() == CV_8U ? 1.0 / 255 : 1.0);
    if (cv::countNonZero(weight > 0) == 0) return values.clone();
    return pushPullFill(values.mul(weight), weight, true);
}

} // namespace mbx
