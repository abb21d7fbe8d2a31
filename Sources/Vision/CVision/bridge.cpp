#include "bridge.hpp"
#include "guided_filter.hpp"
#include <opencv2/imgproc.hpp>

namespace mbx {

static cv::Mat wrap(const mbx_cv_image &image, const char *what) {
    if (!image.data || image.width <= 0 || image.height <= 0)
        throw Failure{std::string(what) + ": empty image"};
    int depth;
    switch (image.format) {
    case MBX_CV_U8: depth = CV_8U; break;
    case MBX_CV_U16: depth = CV_16U; break;
    case MBX_CV_F32: depth = CV_32F; break;
    default: throw Failure{std::string(what) + ": unknown sample format " + std::to_string(image.format)};
    }
    if (image.channels != 1 && image.channels != 3 && image.channels != 4)
        throw Failure{std::string(what) + ": " + std::to_string(image.channels) + " channels (1, 3 or 4 expected)"};
    return cv::Mat(image.height, image.width, CV_MAKETYPE(depth, image.channels), image.data, image.stride);
}

static cv::Mat to8Bit(const cv::Mat &m) {
    if (m.depth() == CV_8U) return m;
    cv::Mat out;
    if (m.depth() == CV_16U) m.convertTo(out, CV_8U, 1.0 / 257.0);
    else m.convertTo(out, CV_8U, 255.0); // float images are 0...1
    return out;
}

cv::Mat toBGR8(const mbx_cv_image &image, const char *what) { return toBGR8(image, what, cv::Size()); }

cv::Mat toBGR8(const mbx_cv_image &image, const char *what, cv::Size size) {
    cv::Mat m = wrap(image, what), out;
    if (!size.empty() && size != m.size()) {
        // Resized from the caller's pixels in place: a large photo is never copied whole.
        cv::Mat resized;
        const bool shrinking = size.width < m.cols && size.height < m.rows;
        cv::resize(m, resized, size, 0, 0, shrinking ? cv::INTER_AREA : cv::INTER_LINEAR);
        m = resized;
    }
    m = to8Bit(m);
    switch (m.channels()) {
    case 1: cv::cvtColor(m, out, cv::COLOR_GRAY2BGR); break;
    case 3: cv::cvtColor(m, out, cv::COLOR_RGB2BGR); break;
    default: cv::cvtColor(m, out, cv::COLOR_RGBA2BGR); break;
    }
    return out;
}

cv::Mat toGrey8(const mbx_cv_image &image, const char *what) {
    cv::Mat m = wrap(image, what), first;
    cv::extractChannel(m, first, 0);
    return to8Bit(first).clone();
}

cv::Mat toFloat(const mbx_cv_image &image, const char *what) {
    cv::Mat m = wrap(image, what), first, out;
    cv::extractChannel(m, first, 0);
    first.convertTo(out, CV_32F);
    return out;
}

// EXIF orientation as (transpose first?, then rotate/flip): apply `upright`
// to display the stored pixels; `stored` undoes it.
cv::Mat upright(const cv::Mat &s, int orientation) {
    cv::Mat out;
    switch (orientation) {
    case 2: cv::flip(s, out, 1); break;
    case 3: cv::rotate(s, out, cv::ROTATE_180); break;
    case 4: cv::flip(s, out, 0); break;
    case 5: cv::transpose(s, out); break;
    case 6: cv::rotate(s, out, cv::ROTATE_90_CLOCKWISE); break;
    case 7: cv::transpose(s, out); cv::rotate(out, out, cv::ROTATE_180); break;
    case 8: cv::rotate(s, out, cv::ROTATE_90_COUNTERCLOCKWISE); break;
    default: out = s; break;
    }
    return out;
}

cv::Mat stored(const cv::Mat &u, int orientation) {
    cv::Mat out;
    switch (orientation) {
    case 2: cv::flip(u, out, 1); break;
    case 3: cv::rotate(u, out, cv::ROTATE_180); break;
    case 4: cv::flip(u, out, 0); break;
    case 5: cv::transpose(u, out); break;
    case 6: cv::rotate(u, out, cv::ROTATE_90_COUNTERCLOCKWISE); break;
    case 7: cv::rotate(u, out, cv::ROTATE_180); cv::transpose(out, out); break;
    case 8: cv::rotate(u, out, cv::ROTATE_90_CLOCKWISE); break;
    default: out = u; break;
    }
    return out;
}

// Rectangles go through a mask so the mapping can never disagree with upright/stored.
static cv::Rect mapRect(const cv::Rect &rect, cv::Size size, bool toUpright, int orientation) {
    if (orientation <= 1 || orientation > 8) return rect;
    cv::Mat mask = cv::Mat::zeros(size, CV_8U);
    mask(rect & cv::Rect(0, 0, size.width, size.height)).setTo(255);
    cv::Mat mapped = toUpright ? upright(mask, orientation) : stored(mask, orientation);
    return cv::boundingRect(mapped);
}

cv::Rect uprightRect(const cv::Rect &rect, cv::Size storedSize, int orientation) {
    return mapRect(rect, storedSize, true, orientation);
}

cv::Rect storedRect(const cv::Rect &rect, cv::Size storedSize, int orientation) {
    bool swaps = orientation >= 5 && orientation <= 8;
    cv::Size uprightSize = swaps ? cv::Size(storedSize.height, storedSize.width) : storedSize;
    return mapRect(rect, uprightSize, false, orientation);
}

void writePlane(const cv::Mat &uprightMatte, int orientation, mbx_cv_plane &plane) {
    if (!plane.data) return;
    if (plane.width <= 0 || plane.height <= 0) throw Failure{"output matte has no size"};
    cv::Mat s = stored(uprightMatte, orientation), resized;
    cv::resize(s, resized, cv::Size(plane.width, plane.height), 0, 0, cv::INTER_LINEAR);
    cv::Mat target(plane.height, plane.width, CV_8U, plane.data, plane.stride);
    resized.copyTo(target);
}

cv::Mat photoAt(const mbx_cv_image &image, cv::Size size) { return toBGR8(image, "photo", size); }

void writePlaneGuided(const cv::Mat &uprightMatte, const cv::Mat &guide, int orientation, mbx_cv_plane &plane) {
    if (!plane.data) return;
    if (plane.width <= 0 || plane.height <= 0) throw Failure{"output matte has no size"};
    const cv::Size size(plane.width, plane.height);
    const cv::Mat s = stored(uprightMatte, orientation);
    const double upsampling = double(std::max(size.width, size.height)) / std::max(s.cols, s.rows);
    cv::Mat target(plane.height, plane.width, CV_8U, plane.data, plane.stride);
    if (upsampling < 1.5 || guide.size() != size) {
        cv::resize(s, target, size, 0, 0, cv::INTER_LINEAR);
        return;
    }
    // Windows two coarse pixels each way, and a small epsilon so colour
    // edges win where the coarse matte is in between (hair), while flat
    // areas keep its value.
    guidedUpsample(s, guide, 2, 0.0004 * 255 * 255, target);
}

} // namespace mbx

extern "C" const char *mbx_cv_version(void) { return CV_VERSION; }
