// The bilateral solver (Barron & Poole, "The Fast Bilateral Solver", ECCV
// 2016): find the smoothest image, in the bilateral sense, that stays close
// to a target where the target is trusted. The problem is posed on a
// bilateral grid, where pixels close in space and in luma share vertices:
//     minimise  lambda * y' (Dm - Dn B Dn) y  +  (y - t)' diag(S c) (y - t)
// with S the splat from pixels to vertices, B a [1 2 1] blur along each grid
// axis, Dm the splatted pixel counts and Dn the bistochastising weights that
// make Dn B Dn behave like Dm. It is solved by conjugate gradients with a
// Jacobi preconditioner, and the pixels read back (sliced) from the vertices.
//
// Unlike OpenCV's FastBilateralSolverFilter (a hashed grid with nearest-vertex
// splatting, which leaves blocks the size of a grid cell and prints its
// progress on standard output), this grid is dense over (x, y, luma) and
// splats and slices trilinearly, so the result has no blocks; luma alone
// keeps the grid small enough to be dense (~200,000 vertices at 1024 px).
#include "depth_refine.hpp"
#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>
#include <vector>

namespace mbx {

namespace {

/// A dense (rows, columns, luma) grid and each pixel's place in it.
class BilateralGrid {
  public:
    BilateralGrid(const cv::Mat &luma, float spatial, float lumaStep) : width(luma.cols), height(luma.rows) {
        gridRows = int(std::ceil(height / spatial)) + 3;
        gridCols = int(std::ceil(width / spatial)) + 3;
        gridLuma = int(std::ceil(1 / lumaStep)) + 3;
        vertices = size_t(gridRows) * gridCols * gridLuma;
        base.resize(size_t(width) * height);
        fraction.resize(size_t(width) * height * 3);
        cv::parallel_for_(cv::Range(0, height), [&](const cv::Range &range) {
            for (int y = range.start; y < range.end; ++y) {
                const float *l = luma.ptr<float>(y);
                for (int x = 0; x < width; ++x) {
                    const float gy = y / spatial + 1, gx = x / spatial + 1, gl = std::clamp(l[x], 0.0f, 1.0f) / lumaStep + 1;
                    const int iy = int(gy), ix = int(gx), il = int(gl);
                    const size_t pixel = size_t(y) * width + x;
                    base[pixel] = int((size_t(iy) * gridCols + ix) * gridLuma + il);
                    fraction[pixel * 3] = gy - iy;
                    fraction[pixel * 3 + 1] = gx - ix;
                    fraction[pixel * 3 + 2] = gl - il;
                }
            }
        });
    }

    size_t size() const { return vertices; }

    /// Each pixel spread over its eight vertices: its count (1), its confidence, and its
    /// confidence times its target, in one pass.
    void splat(const cv::Mat &confidence, const cv::Mat &target, std::vector<double> &counts, std::vector<double> &weights,
               std::vector<double> &weighted) const {
        counts.assign(vertices, 0.0);
        weights.assign(vertices, 0.0);
        weighted.assign(vertices, 0.0);
        for (int y = 0; y < height; ++y) {
            const float *c = confidence.ptr<float>(y), *t = target.ptr<float>(y);
            for (int x = 0; x < width; ++x) {
                const double trust = c[x], value = double(c[x]) * t[x];
                forCorners(size_t(y) * width + x, [&](size_t vertex, float weight) {
                    counts[vertex] += weight;
                    weights[vertex] += trust * weight;
                    weighted[vertex] += value * weight;
                });
            }
        }
    }

    /// Each pixel read back from its eight vertices.
    cv::Mat slice(const std::vector<double> &grid) const {
        cv::Mat out(height, width, CV_32F);
        cv::parallel_for_(cv::Range(0, height), [&](const cv::Range &range) {
            for (int y = range.start; y < range.end; ++y) {
                float *o = out.ptr<float>(y);
                for (int x = 0; x < width; ++x) {
                    double sum = 0;
                    forCorners(size_t(y) * width + x, [&](size_t vertex, float weight) { sum += grid[vertex] * weight; });
                    o[x] = float(sum);
                }
            }
        });
        return out;
    }

    /// The [1 2 1] blur along each of the three axes in turn (zero beyond the grid).
    std::vector<double> blur(const std::vector<double> &grid) const {
        std::vector<double> a = grid, b(vertices);
        const size_t planeStride = size_t(gridCols) * gridLuma, rowStride = size_t(gridLuma);
        blurAxis(a, b, planeStride, gridRows); // along y
        blurAxis(b, a, rowStride, gridCols);   // along x
        blurAxis(a, b, 1, gridLuma);           // along luma
        return b;
    }

    /// `to` = `from` blurred by [1 2 1] along the axis whose neighbours lie `stride` apart and
    /// which has `count` vertices (zero beyond the grid); each plane of y on its own thread.
    void blurAxis(const std::vector<double> &from, std::vector<double> &to, size_t stride, int count) const {
        const size_t planeStride = size_t(gridCols) * gridLuma;
        cv::parallel_for_(cv::Range(0, gridRows), [&](const cv::Range &range) {
            for (size_t i = size_t(range.start) * planeStride; i < size_t(range.end) * planeStride; ++i) {
                const int c = int((i / stride) % size_t(count)); // this vertex's place along the axis
                to[i] = 2 * from[i] + (c > 0 ? from[i - stride] : 0) + (c + 1 < count ? from[i + stride] : 0);
            }
        });
    }

  private:
    template <typename Body> void forCorners(size_t pixel, Body body) const {
        const float fy = fraction[pixel * 3], fx = fraction[pixel * 3 + 1], fl = fraction[pixel * 3 + 2];
        const size_t origin = size_t(base[pixel]);
        for (int dy = 0; dy < 2; ++dy) {
            const float wy = dy ? fy : 1 - fy;
            for (int dx = 0; dx < 2; ++dx) {
                const float wx = dx ? fx : 1 - fx;
                const size_t row = origin + (size_t(dy) * gridCols + dx) * gridLuma;
                body(row, wy * wx * (1 - fl));
                body(row + 1, wy * wx * fl);
            }
        }
    }

    int width, height, gridRows = 0, gridCols = 0, gridLuma = 0;
    size_t vertices = 0;
    std::vector<int> base;
    std::vector<float> fraction;
};

double dot(const std::vector<double> &a, const std::vector<double> &b) {
    double sum = 0;
    for (size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
    return sum;
}

} // namespace

cv::Mat solveBilateral(const cv::Mat &luma, const cv::Mat &target, const cv::Mat &confidence, const BilateralSolverSettings &settings) {
    CV_Assert(luma.type() == CV_32F && target.type() == CV_32F && confidence.type() == CV_32F);
    CV_Assert(luma.size() == target.size() && luma.size() == confidence.size());
    const BilateralGrid grid(luma, settings.spatial, settings.luma);
    const size_t n = grid.size();
    cv::Mat trust = cv::max(confidence, 1e-3f);
    std::vector<double> counts, c, b;
    grid.splat(trust, target, counts, c, b);
    // Bistochastisation: weights n with n * B(n) = counts, so the blur keeps every pixel's mass.
    std::vector<double> normaliser(n, 1.0);
    for (int pass = 0; pass < 10; ++pass) {
        const std::vector<double> blurred = grid.blur(normaliser);
        for (size_t i = 0; i < n; ++i) normaliser[i] = counts[i] > 0 ? std::sqrt(normaliser[i] * counts[i] / std::max(blurred[i], 1e-12)) : 0;
    }
    const double lambda = settings.smoothness;
    auto apply = [&](const std::vector<double> &y) {
        std::vector<double> scaled(n);
        for (size_t i = 0; i < n; ++i) scaled[i] = normaliser[i] * y[i];
        const std::vector<double> blurred = grid.blur(scaled);
        std::vector<double> out(n);
        for (size_t i = 0; i < n; ++i) out[i] = lambda * (counts[i] * y[i] - normaliser[i] * blurred[i]) + c[i] * y[i];
        return out;
    };
    std::vector<double> diagonal(n), y(n), r(n), z(n), p(n);
    for (size_t i = 0; i < n; ++i) {
        const double d = lambda * (counts[i] - 8 * normaliser[i] * normaliser[i]) + c[i];
        diagonal[i] = counts[i] > 0 ? std::max(d, 1e-9) : 1;
        y[i] = c[i] > 1e-9 ? b[i] / c[i] : 0; // the target itself, splatted: the starting point
    }
    const std::vector<double> start = apply(y);
    for (size_t i = 0; i < n; ++i) {
        r[i] = b[i] - start[i];
        z[i] = r[i] / diagonal[i];
        p[i] = z[i];
    }
    double rz = dot(r, z);
    const double tolerance = 1e-10 * std::max(1.0, dot(b, b));
    for (int iteration = 0; iteration < settings.iterations && dot(r, r) > tolerance; ++iteration) {
        const std::vector<double> ap = apply(p);
        const double step = rz / std::max(dot(p, ap), 1e-30);
        for (size_t i = 0; i < n; ++i) {
            y[i] += step * p[i];
            r[i] -= step * ap[i];
            z[i] = r[i] / diagonal[i];
        }
        const double next = dot(r, z);
        const double beta = next / std::max(rz, 1e-30);
        for (size_t i = 0; i < n; ++i) p[i] = z[i] + beta * p[i];
        rz = next;
    }
    return grid.slice(y);
}

} // namespace mbx
