// Colours for the portrait effect: a photo's rows as float RGB, bilinear
// samples of reduced images at full-size pixels, and blur-fusion's estimate of the foreground and background
// colours that a soft edge pixel mixes (Forte & Pitie 2021), so an edge's
// background share can be blurred or replaced alone and a cut-out carries no
// fringe of the old background.
#include "portrait_scene.hpp"
#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>

namespace mbx {

/// Bilinear sample of a level at full-resolution pixel (x, y), the level
/// being `scale` times the full size (pixel centres aligned).
void sampleLevel(const cv::Mat &level, double scale, int x, int y, float *out) {
    const int n = level.channels();
    float fx = float((x + 0.5) * scale - 0.5), fy = float((y + 0.5) * scale - 0.5);
    fx = std::clamp(fx, 0.0f, float(level.cols - 1));
    fy = std::clamp(fy, 0.0f, float(level.rows - 1));
    const int x0 = int(fx), y0 = int(fy), x1 = std::min(x0 + 1, level.cols - 1), y1 = std::min(y0 + 1, level.rows - 1);
    const float tx = fx - x0, ty = fy - y0;
    const float *a = level.ptr<float>(y0), *b = level.ptr<float>(y1);
    for (int c = 0; c < n; ++c) {
        const float top = a[x0 * n + c] + tx * (a[x1 * n + c] - a[x0 * n + c]);
        const float bottom = b[x0 * n + c] + tx * (b[x1 * n + c] - b[x0 * n + c]);
        out[c] = top + ty * (bottom - top);
    }
}

/// Blur-fusion (Forte & Pitie 2021), at a working size of at most 1024 px:
/// smooth estimates of the foreground and background colours around soft
/// matte edges (`foreground`, `background`, at that size). Per pixel, the
/// residual of the compositing equation then gives each side its share
/// (`edgeColours`), so a cut-out carries no fringe of the old background and
/// the background's share of an edge pixel can be swapped alone.
void estimateColours(const cv::Mat &image, const cv::Mat &alpha, cv::Mat &foreground, cv::Mat &background) {
    const int longSide = std::max(image.cols, image.rows);
    // A power-of-two reduction to about 1024 px (integer ratios take INTER_AREA's fast path).
    const double scale = std::pow(0.5, std::max(0, int(std::ceil(std::log2(longSide / 1024.0)))));
    cv::Mat small, a;
    cv::Size size(std::max(1, int(std::lround(image.cols * scale))), std::max(1, int(std::lround(image.rows * scale))));
    cv::resize(image, small, size, 0, 0, cv::INTER_AREA);
    cv::resize(alpha, a, size, 0, 0, cv::INTER_AREA);
    const int side = std::max(size.width, size.height);
    foreground = small.clone();
    background = small.clone();
    // Each pass: the foreground's colours weighted by alpha and the background's by 1 - alpha,
    // with their weights, box-blurred together (colour x weight, weight), then divided.
    cv::Mat frontPack(size, CV_32FC4), backPack(size, CV_32FC4);
    for (int pass = 0; pass < 2; ++pass) {
        const int kernel = (pass == 0 ? std::max(9, side / 30) : std::max(3, side / 300)) | 1;
        for (int y = 0; y < size.height; ++y) {
            const float *al = a.ptr<float>(y), *f = foreground.ptr<float>(y), *b = background.ptr<float>(y);
            float *fp = frontPack.ptr<float>(y), *bp = backPack.ptr<float>(y);
            for (int x = 0; x < size.width; ++x) {
                const float w = al[x], v = 1 - al[x];
                for (int c = 0; c < 3; ++c) {
                    fp[4 * x + c] = f[3 * x + c] * w;
                    bp[4 * x + c] = b[3 * x + c] * v;
                }
                fp[4 * x + 3] = w;
                bp[4 * x + 3] = v;
            }
        }
        cv::blur(frontPack, frontPack, cv::Size(kernel, kernel));
        cv::blur(backPack, backPack, cv::Size(kernel, kernel));
        for (int y = 0; y < size.height; ++y) {
            const float *al = a.ptr<float>(y), *s = small.ptr<float>(y), *fp = frontPack.ptr<float>(y), *bp = backPack.ptr<float>(y);
            float *f = foreground.ptr<float>(y), *b = background.ptr<float>(y);
            for (int x = 0; x < size.width; ++x) {
                const float w = al[x];
                const float fw = 1 / std::max(fp[4 * x + 3], 1e-5f), bw = 1 / std::max(bp[4 * x + 3], 1e-5f);
                for (int c = 0; c < 3; ++c) {
                    const float fb = fp[4 * x + c] * fw, bb = bp[4 * x + c] * bw;
                    const float residual = s[3 * x + c] - w * fb - (1 - w) * bb;
                    f[3 * x + c] = std::clamp(fb + w * residual, 0.0f, 1.0f);
                    b[3 * x + c] = std::clamp(bb + (1 - w) * residual, 0.0f, 1.0f);
                }
            }
        }
    }
}

/// An edge pixel's foreground and background colours from the smooth
/// estimates: the compositing equation's residual shared by alpha.
void edgeColours(const float *pixel, float a, const float *f, const float *b, float *foreground, float *background) {
    for (int c = 0; c < 3; ++c) {
        const float residual = pixel[c] - a * f[c] - (1 - a) * b[c];
        foreground[c] = std::clamp(f[c] + a * residual, 0.0f, 1.0f);
        background[c] = std::clamp(b[c] + (1 - a) * residual, 0.0f, 1.0f);
    }
}

void photoRow(const cv::Mat &photo, int y, float *rgb) {
    const int channels = photo.channels(), cols = photo.cols;
    auto convert = [&](auto *row, float scale) {
        for (int x = 0; x < cols; ++x) {
            const auto *p = row + x * channels;
            if (channels >= 3) {
                for (int c = 0; c < 3; ++c) rgb[3 * x + c] = float(p[c]) * scale;
            } else {
                rgb[3 * x] = rgb[3 * x + 1] = rgb[3 * x + 2] = float(p[0]) * scale;
            }
        }
    };
    switch (photo.depth()) {
    case CV_8U: convert(photo.ptr<uchar>(y), 1.0f / 255); break;
    case CV_16U: convert(photo.ptr<ushort>(y), 1.0f / 65535); break;
    default: convert(photo.ptr<float>(y), 1.0f); break;
    }
}

} // namespace mbx
