// The guided filter and the fast guided upsampling: see guided_filter.hpp.
#include "guided_filter.hpp"
#include <algorithm>
#include <opencv2/imgproc.hpp>
#include <vector>

namespace mbx {

namespace {

/// Each pixel's linear model (output = a . colour + b), the mean of the
/// models of the windows over it.
struct LinearModels {
    cv::Mat coefficients; // float, 4 channels: a for each guide channel, then b
};

LinearModels fit(const cv::Mat &guide, const cv::Mat &source, int radius, double epsilon) {
    CV_Assert(guide.type() == CV_8UC3 && source.channels() == 1 && guide.size() == source.size() && !guide.empty());
    const cv::Size size = guide.size(), window(2 * radius + 1, 2 * radius + 1);
    cv::Mat p;
    source.convertTo(p, CV_32F);
    // Per pixel, the colour, the source and their products, so one box
    // filter gives every window's means: colour (3), source, colour x
    // source (3), colour x colour (6).
    enum { I0, I1, I2, P, I0P, I1P, I2P, I00, I01, I02, I11, I12, I22, terms };
    cv::Mat sums(size, CV_32FC(terms));
    cv::parallel_for_(cv::Range(0, size.height), [&](const cv::Range &rows) {
        for (int y = rows.start; y < rows.end; y++) {
            const uchar *bgr = guide.ptr<uchar>(y);
            const float *value = p.ptr<float>(y);
            float *out = sums.ptr<float>(y);
            for (int x = 0; x < size.width; x++, out += terms) {
                const float i0 = bgr[3 * x], i1 = bgr[3 * x + 1], i2 = bgr[3 * x + 2], v = value[x];
                out[I0] = i0, out[I1] = i1, out[I2] = i2, out[P] = v;
                out[I0P] = i0 * v, out[I1P] = i1 * v, out[I2P] = i2 * v;
                out[I00] = i0 * i0, out[I01] = i0 * i1, out[I02] = i0 * i2, out[I11] = i1 * i1, out[I12] = i1 * i2, out[I22] = i2 * i2;
            }
        }
    });
    cv::Mat means;
    cv::boxFilter(sums, means, CV_32F, window, cv::Point(-1, -1), true, cv::BORDER_REFLECT);
    // Per window: a = (covariance of the colours + epsilon)^-1 (covariance of
    // colour and source), b = mean source - a . mean colour.
    cv::Mat models(size, CV_32FC4);
    cv::parallel_for_(cv::Range(0, size.height), [&](const cv::Range &rows) {
        for (int y = rows.start; y < rows.end; y++) {
            const float *m = means.ptr<float>(y);
            float *out = models.ptr<float>(y);
            for (int x = 0; x < size.width; x++, m += terms, out += 4) {
                const double c0 = m[I0P] - m[I0] * m[P], c1 = m[I1P] - m[I1] * m[P], c2 = m[I2P] - m[I2] * m[P];
                const double s00 = m[I00] - m[I0] * m[I0] + epsilon, s01 = m[I01] - m[I0] * m[I1], s02 = m[I02] - m[I0] * m[I2];
                const double s11 = m[I11] - m[I1] * m[I1] + epsilon, s12 = m[I12] - m[I1] * m[I2];
                const double s22 = m[I22] - m[I2] * m[I2] + epsilon;
                // The symmetric 3x3 system solved by its adjugate (epsilon keeps it positive definite).
                const double i00 = s11 * s22 - s12 * s12, i01 = s02 * s12 - s01 * s22, i02 = s01 * s12 - s02 * s11;
                const double i11 = s00 * s22 - s02 * s02, i12 = s01 * s02 - s00 * s12, i22 = s00 * s11 - s01 * s01;
                const double inverse = 1 / (s00 * i00 + s01 * i01 + s02 * i02);
                const double k0 = (i00 * c0 + i01 * c1 + i02 * c2) * inverse;
                const double k1 = (i01 * c0 + i11 * c1 + i12 * c2) * inverse;
                const double k2 = (i02 * c0 + i12 * c1 + i22 * c2) * inverse;
                out[0] = float(k0), out[1] = float(k1), out[2] = float(k2);
                out[3] = float(m[P] - k0 * m[I0] - k1 * m[I1] - k2 * m[I2]);
            }
        }
    });
    LinearModels fitted;
    cv::boxFilter(models, fitted.coefficients, CV_32F, window, cv::Point(-1, -1), true, cv::BORDER_REFLECT);
    return fitted;
}

/// Where each output pixel falls on a source axis of `from` pixels, as
/// cv::resize's bilinear mapping puts it: the lower index and its weight.
void bilinearAxis(int to, int from, std::vector<int> &lower, std::vector<float> &weight) {
    lower.resize(size_t(to));
    weight.resize(size_t(to));
    const double scale = double(from) / to;
    for (int i = 0; i < to; i++) {
        const double at = std::clamp((i + 0.5) * scale - 0.5, 0.0, double(from - 1));
        const int low = std::min(int(at), std::max(0, from - 2));
        lower[size_t(i)] = low;
        weight[size_t(i)] = from > 1 ? float(at - low) : 0.0f;
    }
}

} // namespace

cv::Mat guidedFilter(const cv::Mat &guide, const cv::Mat &source, int radius, double epsilon) {
    const cv::Mat models = fit(guide, source, radius, epsilon).coefficients;
    cv::Mat out(guide.size(), CV_32F);
    cv::parallel_for_(cv::Range(0, guide.rows), [&](const cv::Range &rows) {
        for (int y = rows.start; y < rows.end; y++) {
            const uchar *bgr = guide.ptr<uchar>(y);
            const float *k = models.ptr<float>(y);
            float *target = out.ptr<float>(y);
            for (int x = 0; x < guide.cols; x++, k += 4) target[x] = k[0] * bgr[3 * x] + k[1] * bgr[3 * x + 1] + k[2] * bgr[3 * x + 2] + k[3];
        }
    });
    return out;
}

void guidedUpsample(const cv::Mat &coarse, const cv::Mat &guide, int radius, double epsilon, cv::Mat &out) {
    CV_Assert(coarse.type() == CV_8UC1 && guide.type() == CV_8UC3 && !coarse.empty() && !guide.empty());
    const cv::Size small = coarse.size(), large = guide.size();
    cv::Mat reduced;
    cv::resize(guide, reduced, small, 0, 0, cv::INTER_AREA);
    const cv::Mat models = fit(reduced, coarse, radius, epsilon).coefficients;
    // At full size, one pass over the rows: the coefficients spread
    // bilinearly and applied to the guide's own colours.
    std::vector<int> x0, y0;
    std::vector<float> wx, wy;
    bilinearAxis(large.width, small.width, x0, wx);
    bilinearAxis(large.height, small.height, y0, wy);
    const int right = small.width > 1 ? 4 : 0, below = small.height > 1 ? 1 : 0;
    out.create(large, CV_8U);
    cv::parallel_for_(cv::Range(0, large.height), [&](const cv::Range &rows) {
        for (int y = rows.start; y < rows.end; y++) {
            const float *upperRow = models.ptr<float>(y0[size_t(y)]), *lowerRow = models.ptr<float>(y0[size_t(y)] + below);
            const float v = wy[size_t(y)];
            const uchar *bgr = guide.ptr<uchar>(y);
            uchar *target = out.ptr<uchar>(y);
            for (int x = 0; x < large.width; x++) {
                const float *upper = upperRow + 4 * x0[size_t(x)], *lower = lowerRow + 4 * x0[size_t(x)];
                const float u = wx[size_t(x)];
                float k[4];
                for (int c = 0; c < 4; c++) {
                    const float top = upper[c] + u * (upper[c + right] - upper[c]);
                    const float bottom = lower[c] + u * (lower[c + right] - lower[c]);
                    k[c] = top + v * (bottom - top);
                }
                target[x] = cv::saturate_cast<uchar>(k[0] * bgr[3 * x] + k[1] * bgr[3 * x + 1] + k[2] * bgr[3 * x + 2] + k[3]);
            }
        }
    });
}

} // namespace mbx
