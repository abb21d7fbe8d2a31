// Image files through OpenCV's codecs: see mbx_image_file.h.
#include "mbx_image_file.h"
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <string>

extern "C" int mbx_image_file_read_rgb8(const char *path, mbx_cv_image *image, mbx_cv_error *error) {
    auto fail = [&](const std::string &message) {
        if (error) std::snprintf(error->message, sizeof error->message, "%s", message.c_str());
        return -1;
    };
    if (!path || !image) return fail("missing argument");
    *image = mbx_cv_image{};
    try {
        cv::Mat bgr = cv::imread(path, cv::IMREAD_COLOR); // turned upright by its EXIF orientation
        if (bgr.empty()) return fail(std::string(path) + ": not an image OpenCV can read");
        const size_t stride = size_t(bgr.cols) * 3;
        void *pixels = std::malloc(stride * size_t(bgr.rows));
        if (!pixels) return fail(std::string(path) + ": out of memory");
        cv::Mat rgb(bgr.rows, bgr.cols, CV_8UC3, pixels, stride);
        cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
        *image = mbx_cv_image{pixels, bgr.cols, bgr.rows, 3, MBX_CV_U8, stride};
        return 0;
    } catch (const std::exception &failure) {
        return fail(std::string(path) + ": " + failure.what());
    }
}

extern "C" void mbx_image_file_free(mbx_cv_image *image) {
    if (!image) return;
    std::free(image->data);
    *image = mbx_cv_image{};
}
