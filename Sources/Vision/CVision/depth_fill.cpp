// Depth frames from depth cameras have holes (0 where nothing was measured)
// and blocky edges; normalized convolution with a guided filter fills the
// holes from neighbours of the same colour and aligns edges with the photo.
#include "bridge.hpp"
#include "guided_filter.hpp"
#include <opencv2/imgproc.hpp>

extern "C" int mbx_cv_fill_depth(const mbx_cv_image *guide, float *depth, int width, int height,
                                 mbx_cv_error *error) {
    return mbx::guarded(error, [&] {
        if (!guide || !depth || width <= 0 || height <= 0) throw mbx::Failure{"missing argument"};
        cv::Mat colour = mbx::toBGR8(*guide, "photo"), small;
        cv::resize(colour, small, cv::Size(width, height), 0, 0, cv::INTER_AREA);
        cv::Mat values(height, width, CV_32F, depth);
        cv::Mat known = values > 0, weight;
        known.convertTo(weight, CV_32F, 1.0 / 255.0);
        if (cv::countNonZero(known) == 0) throw mbx::Failure{"the depth frame has no measured pixel"};
        int radius = std::max(2, std::max(width, height) / 64);
        const cv::Mat sum = mbx::guidedFilter(small, values.mul(weight), radius, 1e-2 * 255 * 255);
        const cv::Mat norm = mbx::guidedFilter(small, weight, radius, 1e-2 * 255 * 255);
        cv::Mat filled = sum / cv::max(norm, 1e-3);
        // Far holes the filter cannot reach take the farthest measured depth.
        double farthest;
        cv::minMaxLoc(values, nullptr, &farthest, nullptr, nullptr, known);
        filled.setTo(farthest, norm < 1e-3);
        cv::Mat out = values.clone();
        filled.copyTo(out, ~known);
        out.copyTo(values);
    });
}
