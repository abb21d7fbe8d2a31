// The fast guided filter: see guided_upsampling.hpp.
#include "guided_upsampling.hpp"
#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>
#include <vector>

namespace mbx {

namespace {

cv::Mat windowMean(const cv::Mat &image, int radius) {
    cv::Mat mean;
    cv::boxFilter(image, mean, CV_32F, cv::Size(2 * radius + 1, 2 * radius + 1), cv::Point(-1, -1), true, cv::BORDER_REFLECT);
    return mean;
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

void guidedUpsample(const cv::Mat &coarse, const cv::Mat &guide, int radius, double epsilon, cv::Mat &out) {
    CV_Assert(coarse.type() == CV_8UC1 && guide.type() == CV_8UC3 && !coarse.empty() && !guide.empty());
    const cv::Size small = coarse.size(), large = guide.size();
    cv::Mat reduced, p, colour;
    cv::resize(guide, reduced, small, 0, 0, cv::INTER_AREA);
    reduced.convertTo(colour, CV_32FC3);
    coarse.convertTo(p, CV_32F);
    std::vector<cv::Mat> I;
    cv::split(colour, I);
    // The windows' means: colour, matte, colour x matte and colour x colour.
    const cv::Mat meanP = windowMean(p, radius);
    cv::Mat meanI[3], covIP[3], varI[3][3];
    for (int c = 0; c < 3; c++) {
        meanI[c] = windowMean(I[size_t(c)], radius);
        covIP[c] = windowMean(I[size_t(c)].mul(p), radius) - meanI[c].mul(meanP);
    }
    for (int c = 0; c < 3; c++)
        for (int d = c; d < 3; d++) varI[c][d] = windowMean(I[size_t(c)].mul(I[size_t(d)]), radius) - meanI[c].mul(meanI[d]);
    // Per window: a = (covariance of the colours + epsilon)^-1 (colour x matte covariance), b = mean - a . mean colour.
    cv::Mat a[3], b(small, CV_32F);
    for (auto &plane : a) plane.create(small, CV_32F);
    for (int y = 0; y < small.height; y++) {
        const float *v00 = varI[0][0].ptr<float>(y), *v01 = varI[0][1].ptr<float>(y), *v02 = varI[0][2].ptr<float>(y);
        const float *v11 = varI[1][1].ptr<float>(y), *v12 = varI[1][2].ptr<float>(y), *v22 = varI[2][2].ptr<float>(y);
        const float *c0 = covIP[0].ptr<float>(y), *c1 = covIP[1].ptr<float>(y), *c2 = covIP[2].ptr<float>(y);
        const float *m0 = meanI[0].ptr<float>(y), *m1 = meanI[1].ptr<float>(y), *m2 = meanI[2].ptr<float>(y);
        const float *mp = meanP.ptr<float>(y);
        float *a0 = a[0].ptr<float>(y), *a1 = a[1].ptr<float>(y), *a2 = a[2].ptr<float>(y), *by = b.ptr<float>(y);
        for (int x = 0; x < small.width; x++) {
            // The symmetric 3x3 system solved by its adjugate (epsilon keeps it positive definite).
            const double s00 = v00[x] + epsilon, s01 = v01[x], s02 = v02[x], s11 = v11[x] + epsilon, s12 = v12[x],
                         s22 = v22[x] + epsilon;
            const double i00 = s11 * s22 - s12 * s12, i01 = s02 * s12 - s01 * s22, i02 = s01 * s12 - s02 * s11;
            const double i11 = s00 * s22 - s02 * s02, i12 = s01 * s02 - s00 * s12, i22 = s00 * s11 - s01 * s01;
            const double determinant = s00 * i00 + s01 * i01 + s02 * i02;
            const double k0 = (i00 * c0[x] + i01 * c1[x] + i02 * c2[x]) / determinant;
            const double k1 = (i01 * c0[x] + i11 * c1[x] + i12 * c2[x]) / determinant;
            const double k2 = (i02 * c0[x] + i12 * c1[x] + i22 * c2[x]) / determinant;
            a0[x] = float(k0), a1[x] = float(k1), a2[x] = float(k2);
            by[x] = float(mp[x] - k0 * m0[x] - k1 * m1[x] - k2 * m2[x]);
        }
    }
    // Each pixel's model is the mean of the windows over it.
    cv::Mat meanA[3], meanB = windowMean(b, radius);
    for (int c = 0; c < 3; c++) meanA[c] = windowMean(a[c], radius);
    // At full size, one pass over the rows: the coefficients spread
    // bilinearly and applied to the guide's own colours.
    std::vector<int> x0, y0;
    std::vector<float> wx, wy;
    bilinearAxis(large.width, small.width, x0, wx);
    bilinearAxis(large.height, small.height, y0, wy);
    const int right = small.width > 1 ? 1 : 0, below = small.height > 1 ? 1 : 0;
    out.create(large, CV_8U);
    cv::parallel_for_(cv::Range(0, large.height), [&](const cv::Range &rows) {
        for (int y = rows.start; y < rows.end; y++) {
            const int top = y0[size_t(y)];
            const float v = wy[size_t(y)];
            const float *coefficient[4][2];
            for (int c = 0; c < 3; c++) coefficient[c][0] = meanA[c].ptr<float>(top), coefficient[c][1] = meanA[c].ptr<float>(top + below);
            coefficient[3][0] = meanB.ptr<float>(top), coefficient[3][1] = meanB.ptr<float>(top + below);
            const uchar *bgr = guide.ptr<uchar>(y);
            uchar *target = out.ptr<uchar>(y);
            for (int x = 0; x < large.width; x++) {
                const int left = x0[size_t(x)];
                const float u = wx[size_t(x)];
                float value[4];
                for (int k = 0; k < 4; k++) {
                    const float upper = coefficient[k][0][left] + u * (coefficient[k][0][left + right] - coefficient[k][0][left]);
                    const float lower = coefficient[k][1][left] + u * (coefficient[k][1][left + right] - coefficient[k][1][left]);
                    value[k] = upper + v * (lower - upper);
                }
                const float q = value[0] * bgr[3 * x] + value[1] * bgr[3 * x + 1] + value[2] * bgr[3 * x + 2] + value[3];
                target[x] = cv::saturate_cast<uchar>(q);
            }
        }
    });
}

} // namespace mbx
