// Conversions between the C structs of mbx_vision.h and cv::Mat, the EXIF
// orientation turn that lets faces be found upright, and the try/catch that
// keeps C++ exceptions on this side of the C API.
#pragma once
#include "mbx_vision.h"
#include <opencv2/core.hpp>
#include <string>

namespace mbx {

/// An error with a message for the caller.
struct Failure {
    std::string message;
};

/// The image as 8-bit BGR (copied; any channel count and sample format).
cv::Mat toBGR8(const mbx_cv_image &image, const char *what);
/// The same at `size`, resized before it is converted (no full-size copy).
cv::Mat toBGR8(const mbx_cv_image &image, const char *what, cv::Size size);
/// The image as one 8-bit channel (first channel; 16-bit and float scaled).
cv::Mat toGrey8(const mbx_cv_image &image, const char *what);
/// The image's first channel as float, unscaled.
cv::Mat toFloat(const mbx_cv_image &image, const char *what);

/// Turns stored pixels upright for EXIF orientation 1..8, and back.
cv::Mat upright(const cv::Mat &stored, int orientation);
cv::Mat stored(const cv::Mat &uprightImage, int orientation);
/// A rectangle in stored coordinates moved into upright coordinates and back.
cv::Rect uprightRect(const cv::Rect &rect, cv::Size storedSize, int orientation);
cv::Rect storedRect(const cv::Rect &rect, cv::Size storedSize, int orientation);

/// Resizes a soft 8-bit matte (upright working frame) to the caller's plane in
/// stored orientation.
void writePlane(const cv::Mat &uprightMatte, int orientation, mbx_cv_plane &plane);
/// The photo as 8-bit BGR at `size` (stored orientation): the guide for writePlaneGuided.
cv::Mat photoAt(const mbx_cv_image &image, cv::Size size);
/// The same as writePlane, for a matte computed at a smaller size than the
/// plane: upsampled edge-aware (a guided filter on `guide`, the photo at the
/// plane's size from photoAt), so soft edges such as hair follow the photo
/// instead of the coarse pixels.
void writePlaneGuided(const cv::Mat &uprightMatte, const cv::Mat &guide, int orientation, mbx_cv_plane &plane);

/// Runs body, turning Failure and C++ exceptions into a status and message.
template <typename Body> int guarded(mbx_cv_error *error, Body body) {
    auto fail = [&](const std::string &message) {
        if (error) {
            size_t n = std::min(message.size(), sizeof(error->message) - 1);
            message.copy(error->message, n);
            error->message[n] = 0;
        }
        return 1;
    };
    try {
        body();
        return 0;
    } catch (const Failure &failure) {
        return fail(failure.message);
    } catch (const cv::Exception &exception) {
        return fail(std::string("OpenCV: ") + exception.what());
    } catch (const std::exception &exception) {
        return fail(exception.what());
    } catch (...) {
        return fail("unknown C++ exception");
    }
}

} // namespace mbx
