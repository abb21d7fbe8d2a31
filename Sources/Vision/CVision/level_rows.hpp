// A reduced image (a pyramid level) read back at full size one row at a
// time: bilinear, pixel centres aligned, with the column weights worked out
// once instead of per pixel.
#pragma once
#include <algorithm>
#include <opencv2/core.hpp>
#include <vector>

namespace mbx {

/// `level` (CV_32F, any channels) is `scale` times the full size.
class LevelRows {
  public:
    LevelRows(const cv::Mat &level, int fullWidth, double scale) : level(level), scale(scale), channels(level.channels()) {
        left.resize(size_t(fullWidth));
        right.resize(size_t(fullWidth));
        share.resize(size_t(fullWidth));
        for (int x = 0; x < fullWidth; ++x) {
            const float fx = std::clamp(float((x + 0.5) * scale - 0.5), 0.0f, float(level.cols - 1));
            left[size_t(x)] = int(fx);
            right[size_t(x)] = std::min(int(fx) + 1, level.cols - 1);
            share[size_t(x)] = fx - float(int(fx));
        }
    }

    /// Full-size row y (fullWidth x channels floats) into `out`; `scratch` holds one level row.
    void row(int y, float *out, std::vector<float> &scratch) const {
        const int n = channels, cols = level.cols;
        const float fy = std::clamp(float((y + 0.5) * scale - 0.5), 0.0f, float(level.rows - 1));
        const int y0 = int(fy), y1 = std::min(y0 + 1, level.rows - 1);
        const float ty = fy - float(y0);
        scratch.resize(size_t(cols) * n);
        const float *a = level.ptr<float>(y0), *b = level.ptr<float>(y1);
        float *blend = scratch.data();
        for (int i = 0; i < cols * n; ++i) blend[i] = a[i] + ty * (b[i] - a[i]);
        switch (n) { // the channel count known to the compiler, so the loops unroll
        case 1: across<1>(blend, out); break;
        case 3: across<3>(blend, out); break;
        case 4: across<4>(blend, out); break;
        default:
            for (size_t x = 0; x < left.size(); ++x) {
                const float *l = blend + left[x] * n, *r = blend + right[x] * n;
                for (int c = 0; c < n; ++c) out[x * size_t(n) + size_t(c)] = l[c] + share[x] * (r[c] - l[c]);
            }
        }
    }

  private:
    template <int n> void across(const float *blend, float *out) const {
        const size_t width = left.size();
        for (size_t x = 0; x < width; ++x) {
            const float *l = blend + left[x] * n, *r = blend + right[x] * n;
            const float t = share[x];
            for (int c = 0; c < n; ++c) out[x * n + c] = l[c] + t * (r[c] - l[c]);
        }
    }

    const cv::Mat &level;
    double scale;
    int channels;
    std::vector<int> left, right;
    std::vector<float> share;
};

} // namespace mbx
