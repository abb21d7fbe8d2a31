// Portrait effects: synthetic depth of field set after capture, background
// replacement and cut-outs, from a photo's subject matte and depth.
//
// After Wadhwa et al. 2018 (Google's Portrait mode: the subject kept sharp by
// segmentation, every other pixel blurred by a disc whose size follows its
// distance from the focal plane), BokehMe (Peng et al. 2022: radius =
// K * |disparity - focus disparity|; blurring image^gamma and taking the
// 1/gamma power makes highlights bloom), Dr.Bokeh (2024: render in layers,
// the background behind the subject filled in first, so the subject's colours
// never bleed outwards) and Forte & Pitie 2021 (blur-fusion foreground and
// background colour estimation at soft matte edges).
//
// The photo is split into three layers: the far layer (everything behind the
// focal plane and outside the subject), the subject (the matte; with depth
// alone, what lies on the focal plane) and the near layer (outside the
// subject and in front of the focal plane). The far layer is filled in behind
// the others (push-pull) and blurred with a disc of each pixel's own radius;
// the subject is put back through its soft matte by swapping only the
// background's share of each edge pixel; the near layer is blurred
// premultiplied with its radius spread outwards, so it covers what lies
// behind it. Discs are gathered row by row from prefix sums (O(radius) per
// pixel), each pixel on the pyramid level where its radius is 4-8 px, the two
// nearest levels blended.
#include "bridge.hpp"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

namespace mbx {

namespace {

/// Step times on standard error when MATTEBOX_PROFILE_EFFECT is set (for tuning).
struct StepClock {
    bool on = std::getenv("MATTEBOX_PROFILE_EFFECT") != nullptr;
    std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
    void operator()(const char *step) {
        auto now = std::chrono::steady_clock::now();
        if (on) std::fprintf(stderr, "portrait effect: %-22s %7.1f ms\n", step, std::chrono::duration<double, std::milli>(now - last).count());
        last = now;
    }
};

constexpr double smallestAperture = 16.0, widestAperture = 1.4;

/// How much of the widest aperture's blur an f-number gives: 1 at f/1.4, 0 at
/// f/16, in proportion to the lens opening (1/N) in between, so a smaller
/// f-number always blurs more.
double apertureStrength(double fNumber) {
    double n = std::clamp(fNumber, widestAperture, smallestAperture);
    return (1 / n - 1 / smallestAperture) / (1 / widestAperture - 1 / smallestAperture);
}

/// The photo as float RGB 0...1 (alpha, if any, left aside).
cv::Mat toRGBFloat(const mbx_cv_image &image) {
    cv::Mat wrapped(image.height, image.width, CV_MAKETYPE(image.format == MBX_CV_U16 ? CV_16U : image.format == MBX_CV_F32 ? CV_32F : CV_8U, image.channels),
                    image.data, image.stride);
    cv::Mat rgb;
    if (image.channels == 1) cv::cvtColor(wrapped, rgb, cv::COLOR_GRAY2RGB);
    else if (image.channels == 4) cv::cvtColor(wrapped, rgb, cv::COLOR_RGBA2RGB);
    else rgb = wrapped;
    cv::Mat out;
    double scale = image.format == MBX_CV_U16 ? 1.0 / 65535 : image.format == MBX_CV_F32 ? 1.0 : 1.0 / 255;
    rgb.convertTo(out, CV_32FC3, scale);
    return out;
}

/// Writes float RGB back in the output's format, keeping its alpha channel.
void fromRGBFloat(const cv::Mat &rgb, mbx_cv_image &output) {
    int depth = output.format == MBX_CV_U16 ? CV_16U : output.format == MBX_CV_F32 ? CV_32F : CV_8U;
    cv::Mat target(output.height, output.width, CV_MAKETYPE(depth, output.channels), output.data, output.stride);
    double scale = output.format == MBX_CV_U16 ? 65535 : output.format == MBX_CV_F32 ? 1 : 255;
    cv::Mat converted;
    rgb.convertTo(converted, CV_MAKETYPE(depth, 3), scale);
    if (output.channels == 3) converted.copyTo(target);
    else if (output.channels == 1) cv::cvtColor(converted, target, cv::COLOR_RGB2GRAY);
    else {
        int pairs[] = {0, 0, 1, 1, 2, 2};
        cv::mixChannels(&converted, 1, &target, 1, pairs, 3);
    }
}

/// A plane resized to `size` as float 0...1 (matte) or as raw values (depth).
cv::Mat resizedFloat(const mbx_cv_image &plane, cv::Size size, bool unitRange, const char *what) {
    cv::Mat values = toFloat(plane, what);
    if (unitRange) values *= plane.format == MBX_CV_U8 ? 1.0 / 255 : plane.format == MBX_CV_U16 ? 1.0 / 65535 : 1.0;
    cv::Mat out;
    cv::resize(values, out, size, 0, 0, cv::INTER_LINEAR);
    return out;
}

/// Disparity scaled to 0 (far) ... 1 (near) between its 1st and 99th
/// percentiles, so relative (8-bit) and absolute (1/m) maps read alike.
cv::Mat normalisedDisparity(cv::Mat disparity, bool isDistance) {
    if (isDistance) {
        cv::Mat positive = disparity > 0;
        cv::Mat inverse;
        cv::divide(1.0, cv::max(disparity, 1e-6f), inverse);
        inverse.setTo(0, ~positive);
        disparity = inverse;
    }
    cv::patchNaNs(disparity, 0);
    std::vector<float> sample;
    const int step = std::max(1, int(disparity.total() / 200000));
    sample.reserve(disparity.total() / step + 1);
    for (size_t i = 0; i < disparity.total(); i += step) sample.push_back(disparity.ptr<float>()[i]);
    std::sort(sample.begin(), sample.end());
    const float low = sample[sample.size() / 100], high = sample[sample.size() * 99 / 100];
    cv::Mat out;
    if (high - low < 1e-6f) return cv::Mat::zeros(disparity.size(), CV_32F);
    disparity.convertTo(out, CV_32F, 1.0 / (high - low), -low / (high - low));
    cv::min(cv::max(out, 0.0f), 1.0f, out);
    return out;
}

/// The median of `values` where `mask` is set (mask may be empty: everywhere).
float medianWhere(const cv::Mat &values, const cv::Mat &mask) {
    std::vector<float> picked;
    for (int y = 0; y < values.rows; y += 2) {
        const float *v = values.ptr<float>(y);
        const uchar *m = mask.empty() ? nullptr : mask.ptr<uchar>(y);
        for (int x = 0; x < values.cols; x += 2)
            if (!m || m[x]) picked.push_back(v[x]);
    }
    if (picked.empty()) return 1;
    std::nth_element(picked.begin(), picked.begin() + picked.size() / 2, picked.end());
    return picked[picked.size() / 2];
}

/// The main near region of a depth map: pixels nearer than Otsu's split of
/// the disparity histogram (the near mode of a subject against a background),
/// in the middle half of the frame where a subject usually stands (so a
/// table edge or a wall at the side, nearer still, does not take the focus).
cv::Mat nearRegion(const cv::Mat &disparity) {
    cv::Mat bytes, region;
    disparity.convertTo(bytes, CV_8U, 255);
    cv::threshold(bytes, region, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
    cv::Mat central = cv::Mat::zeros(region.size(), CV_8U);
    central(cv::Rect(region.cols / 4, region.rows / 4, region.cols / 2, region.rows / 2)).setTo(255);
    cv::Mat centred = region & central;
    return cv::countNonZero(centred) > 0 ? centred : region;
}

/// Halves an image (area average) until it is at most `levels` deep; [0] is the image itself.
std::vector<cv::Mat> pyramid(const cv::Mat &image, int levels) {
    std::vector<cv::Mat> out{image};
    while (int(out.size()) < levels && std::max(out.back().cols, out.back().rows) > 1) {
        cv::Mat half;
        cv::resize(out.back(), half, cv::Size((out.back().cols + 1) / 2, (out.back().rows + 1) / 2), 0, 0, cv::INTER_AREA);
        out.push_back(half);
    }
    return out;
}

/// Bilinear sample of a level at full-resolution pixel (x, y), the level
/// being `scale` times the full size (pixel centres aligned).
inline void sampleLevel(const cv::Mat &level, double scale, int x, int y, float *out) {
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

/// Push-pull filling: where `weight` is below 1 the layer is completed from
/// coarser averages of the weighted pixels around, so a layer hidden behind
/// another gets plausible content of its own (never the occluder's). Returns
/// the filled layer at every level of its pyramid ([0] full size).
std::vector<cv::Mat> pushPull(const cv::Mat &layer, const cv::Mat &weight) {
    const int n = layer.channels();
    cv::Mat weighted(layer.size(), layer.type());
    cv::parallel_for_(cv::Range(0, layer.rows), [&](const cv::Range &range) {
        for (int y = range.start; y < range.end; ++y) {
            const float *l = layer.ptr<float>(y), *w = weight.ptr<float>(y);
            float *o = weighted.ptr<float>(y);
            for (int x = 0; x < layer.cols; ++x)
                for (int c = 0; c < n; ++c) o[x * n + c] = l[x * n + c] * w[x];
        }
    });
    std::vector<cv::Mat> premultiplied = pyramid(weighted, 64), weights = pyramid(weight, 64);
    weighted.release();
    std::vector<cv::Mat> filled(premultiplied.size());
    // The coarsest level normalised, then each finer level composited over the one below.
    cv::Mat &top = premultiplied.back();
    filled.back() = top.clone();
    for (int y = 0; y < top.rows; ++y)
        for (int x = 0; x < top.cols; ++x) {
            const float w = std::max(weights.back().at<float>(y, x), 1e-6f);
            for (int c = 0; c < n; ++c) filled.back().ptr<float>(y)[x * n + c] /= w;
        }
    for (int level = int(premultiplied.size()) - 2; level >= 0; --level) {
        const cv::Mat &coarser = filled[level + 1];
        cv::Mat out = premultiplied[level];
        const cv::Mat &w = weights[level];
        cv::parallel_for_(cv::Range(0, out.rows), [&](const cv::Range &range) {
            float up[8];
            for (int y = range.start; y < range.end; ++y) {
                float *o = out.ptr<float>(y);
                const float *wr = w.ptr<float>(y);
                for (int x = 0; x < out.cols; ++x) {
                    const float rest = 1.0f - std::min(wr[x], 1.0f);
                    if (rest <= 0) continue;
                    sampleLevel(coarser, 0.5, x, y, up);
                    for (int c = 0; c < n; ++c) o[x * n + c] += rest * up[c];
                }
            }
        });
        filled[level] = out;
    }
    return filled;
}

/// Each pixel of `image` where `need` is set replaced in `out` by the mean
/// of a disc of its own radius (`radius`, in this image's pixels); the
/// disc's rows come from per-row prefix sums with fractional ends, so the
/// cost is O(radius) and the disc's edge is anti-aliased.
void gatherDiscs(const cv::Mat &image, const cv::Mat &radius, const cv::Mat &need, cv::Mat &out) {
    const int rows = image.rows, cols = image.cols, n = image.channels();
    cv::Mat prefix(rows, (cols + 1) * n, CV_32F);
    cv::parallel_for_(cv::Range(0, rows), [&](const cv::Range &range) {
        for (int y = range.start; y < range.end; ++y) {
            const float *src = image.ptr<float>(y);
            float *p = prefix.ptr<float>(y);
            for (int c = 0; c < n; ++c) p[c] = 0;
            for (int x = 0; x < cols; ++x)
                for (int c = 0; c < n; ++c) p[(x + 1) * n + c] = p[x * n + c] + src[x * n + c];
        }
    });
    cv::parallel_for_(cv::Range(0, rows), [&](const cv::Range &range) {
        float sum[8];
        for (int y = range.start; y < range.end; ++y) {
            const float *r = radius.ptr<float>(y);
            const uchar *wanted = need.ptr<uchar>(y);
            float *o = out.ptr<float>(y);
            for (int x = 0; x < cols; ++x) {
                const float rho = r[x];
                if (!wanted[x] || rho < 0.5f) continue;
                for (int c = 0; c < n; ++c) sum[c] = 0;
                float area = 0;
                const int reach = int(rho);
                for (int dy = -reach; dy <= reach; ++dy) {
                    const int yy = y + dy;
                    if (yy < 0 || yy >= rows) continue;
                    const float half = std::sqrt(rho * rho - float(dy * dy));
                    // Pixel j covers [j, j+1); the disc's row covers [x + 0.5 - half, x + 0.5 + half).
                    const float a = std::clamp(x + 0.5f - half, 0.0f, float(cols)), b = std::clamp(x + 0.5f + half, 0.0f, float(cols));
                    if (b <= a) continue;
                    const float *p = prefix.ptr<float>(yy);
                    const float *src = image.ptr<float>(yy);
                    const int ia = std::min(int(a), cols - 1), ib = std::min(int(b), cols - 1);
                    const float fa = a - ia, fb = b - ib;
                    for (int c = 0; c < n; ++c)
                        sum[c] += (p[ib * n + c] + fb * src[ib * n + c]) - (p[ia * n + c] + fa * src[ia * n + c]);
                    area += b - a;
                }
                if (area > 0)
                    for (int c = 0; c < n; ++c) o[x * n + c] = sum[c] / area;
            }
        }
    });
}

/// Where a radius falls among the levels: level k holds radii of 4-8 of its
/// own pixels (8-16 px at full size for k = 1), level 0 everything below 8.
inline float levelOf(float radius) { return radius < 4 ? 0 : std::log2(radius * 0.25f); }

/// Disc blur with a radius per pixel: `colours` is the layer's pyramid ([0]
/// full size) and `radii` the radius of each pixel at each level, in
/// full-size pixels. A pixel's disc is gathered on the level where its
/// radius is 4-8 level pixels, blended with the next level, and brought back
/// to full size bilinearly. A blurred region holds no detail finer than its
/// disc, so the reduced levels lose nothing a viewer sees (the disc's edge
/// softens by about a level pixel: PortraitEffectTests measure the diameter).
cv::Mat discBlur(std::vector<cv::Mat> colours, std::vector<cv::Mat> radii) {
    const cv::Mat image = colours[0], radius = radii[0]; // headers: the vectors grow below
    const int n = image.channels();
    double highest = 0;
    cv::minMaxLoc(radius, nullptr, &highest);
    const int levels = int(std::floor(levelOf(float(highest)))) + 2;
    while (int(colours.size()) < levels + 1) {
        cv::Mat half, halfRadius;
        cv::resize(colours.back(), half, cv::Size((colours.back().cols + 1) / 2, (colours.back().rows + 1) / 2), 0, 0, cv::INTER_AREA);
        cv::resize(radii.back(), halfRadius, half.size(), 0, 0, cv::INTER_AREA);
        colours.push_back(half);
        radii.push_back(halfRadius);
    }
    // Levels 1 and up, each gathered where it has a share.
    std::vector<cv::Mat> blurred(levels + 1);
    for (int k = 1; k <= levels; ++k) {
        const float scale = float(colours[k].cols) / image.cols;
        cv::Mat need(colours[k].size(), CV_8U), levelRadius(colours[k].size(), CV_32F);
        cv::parallel_for_(cv::Range(0, need.rows), [&](const cv::Range &range) {
            for (int y = range.start; y < range.end; ++y) {
                const float *r = radii[k].ptr<float>(y);
                uchar *wanted = need.ptr<uchar>(y);
                float *own = levelRadius.ptr<float>(y);
                for (int x = 0; x < need.cols; ++x) {
                    wanted[x] = std::abs(levelOf(r[x]) - k) < 1 ? 255 : 0;
                    own[x] = r[x] * scale;
                }
            }
        });
        if (cv::countNonZero(need) == 0) continue;
        cv::dilate(need, need, cv::Mat(), cv::Point(-1, -1), 2);
        blurred[k] = colours[k].clone();
        gatherDiscs(colours[k], levelRadius, need, blurred[k]);
    }
    // Level 0, in place of the output, where radii are under 8 px.
    cv::Mat out = image.clone();
    cv::Mat need = (radius >= 0.5f) & (radius < 8.0f);
    if (cv::countNonZero(need) > 0) gatherDiscs(image, radius, need, out);
    cv::parallel_for_(cv::Range(0, out.rows), [&](const cv::Range &range) {
        float lower[8], upper[8];
        for (int y = range.start; y < range.end; ++y) {
            const float *r = radius.ptr<float>(y);
            float *o = out.ptr<float>(y);
            for (int x = 0; x < out.cols; ++x) {
                const float level = levelOf(r[x]);
                if (level <= 0) continue; // level 0 alone: already in place
                const int k = int(level);
                const float t = level - k;
                if (k == 0) for (int c = 0; c < n; ++c) lower[c] = o[x * n + c];
                else if (!blurred[k].empty()) sampleLevel(blurred[k], double(blurred[k].cols) / out.cols, x, y, lower);
                else for (int c = 0; c < n; ++c) lower[c] = o[x * n + c];
                if (k + 1 < int(blurred.size()) && !blurred[k + 1].empty())
                    sampleLevel(blurred[k + 1], double(blurred[k + 1].cols) / out.cols, x, y, upper);
                else for (int c = 0; c < n; ++c) upper[c] = lower[c];
                for (int c = 0; c < n; ++c) o[x * n + c] = (1 - t) * lower[c] + t * upper[c];
            }
        }
    });
    return out;
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
    cv::Mat a3, inverse3;
    cv::Mat alphas[] = {a, a, a};
    cv::merge(alphas, 3, a3);
    inverse3 = cv::Scalar::all(1) - a3;
    cv::Mat inverse = 1.0f - a;
    for (int pass = 0; pass < 2; ++pass) {
        int kernel = (pass == 0 ? std::max(9, side / 30) : std::max(3, side / 300)) | 1;
        cv::Size box(kernel, kernel);
        cv::Mat alphaBlur, inverseBlur, fBlur, bBlur;
        cv::blur(a, alphaBlur, box);
        cv::blur(inverse, inverseBlur, box);
        cv::blur(foreground.mul(a3), fBlur, box);
        cv::blur(background.mul(inverse3), bBlur, box);
        cv::Mat ab[] = {alphaBlur, alphaBlur, alphaBlur}, ib[] = {inverseBlur, inverseBlur, inverseBlur};
        cv::Mat alphaBlur3, inverseBlur3;
        cv::merge(ab, 3, alphaBlur3);
        cv::merge(ib, 3, inverseBlur3);
        cv::divide(fBlur, cv::max(alphaBlur3, 1e-5f), fBlur);
        cv::divide(bBlur, cv::max(inverseBlur3, 1e-5f), bBlur);
        cv::Mat residual = small - a3.mul(fBlur) - inverse3.mul(bBlur);
        foreground = fBlur + a3.mul(residual);
        background = bBlur + inverse3.mul(residual);
        cv::min(cv::max(foreground, 0.0f), 1.0f, foreground);
        cv::min(cv::max(background, 0.0f), 1.0f, background);
    }
}

/// An edge pixel's foreground and background colours from the smooth
/// estimates: the compositing equation's residual shared by alpha.
inline void edgeColours(const float *pixel, float a, const float *f, const float *b, float *foreground, float *background) {
    for (int c = 0; c < 3; ++c) {
        const float residual = pixel[c] - a * f[c] - (1 - a) * b[c];
        foreground[c] = std::clamp(f[c] + a * residual, 0.0f, 1.0f);
        background[c] = std::clamp(b[c] + (1 - a) * residual, 0.0f, 1.0f);
    }
}

/// A replacement background as large as the photo, in stored orientation:
/// the image scaled to cover the upright photo and centred.
cv::Mat replacementBackground(const char *path, cv::Size storedSize, int orientation) {
    const bool swaps = orientation >= 5 && orientation <= 8;
    cv::Size uprightSize = swaps ? cv::Size(storedSize.height, storedSize.width) : storedSize;
    cv::Mat bgr = cv::imread(path, cv::IMREAD_COLOR); // turned upright by its EXIF orientation
    if (bgr.empty()) throw Failure{std::string("background image ") + path + ": not an image OpenCV can read"};
    cv::Mat rgb;
    cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
    rgb.convertTo(rgb, CV_32FC3, 1.0 / 255);
    const double scale = std::max(double(uprightSize.width) / rgb.cols, double(uprightSize.height) / rgb.rows);
    cv::Mat resized;
    cv::resize(rgb, resized, cv::Size(std::max(uprightSize.width, int(std::ceil(rgb.cols * scale))),
                                      std::max(uprightSize.height, int(std::ceil(rgb.rows * scale)))),
               0, 0, scale < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
    cv::Rect centre((resized.cols - uprightSize.width) / 2, (resized.rows - uprightSize.height) / 2, uprightSize.width, uprightSize.height);
    return stored(resized(centre).clone(), orientation);
}

} // namespace

} // namespace mbx

using namespace mbx;

/// The far layer (outside the subject, behind the focal plane) filled in
/// where the subject and nearer things hide it (push-pull from the pixels
/// clearly behind, a little away from the subject's edge), blurred, and
/// brought back from power gamma; full size. When nearly all of it blurs by
/// many pixels (a matte alone puts the whole background at the far end), it
/// is worked out on a reduced copy (half, a quarter or an eighth, so that 95 %
/// of its pixels still have a radius of 4 reduced pixels or more) and
/// enlarged: the blurred layer holds no finer detail than that.
cv::Mat blurredFarLayer(const cv::Mat &fullPhoto, const cv::Mat &fullAlpha, const cv::Mat &fullNear, const cv::Mat &fullDepth,
                        float focus, float fullMaxRadius, float gamma, StepClock &step) {
    const cv::Size fullSize = fullPhoto.size();
    std::vector<float> radii;
    for (int y = 0; y < fullSize.height; y += 4) {
        const float *a = fullAlpha.ptr<float>(y), *nr = fullNear.ptr<float>(y), *d = fullDepth.ptr<float>(y);
        for (int x = 0; x < fullSize.width; x += 4)
            if (1 - a[x] - nr[x] > 0.5f) radii.push_back(std::max(focus - d[x], 0.0f) * fullMaxRadius);
    }
    int reduction = 0;
    if (!radii.empty()) {
        std::nth_element(radii.begin(), radii.begin() + radii.size() / 20, radii.end());
        const float fifth = radii[radii.size() / 20];
        reduction = fifth >= 8 ? std::min(3, int(std::floor(std::log2(fifth / 4)))) : 0;
    }
    const double scale = std::pow(0.5, reduction);
    cv::Mat photo = fullPhoto, alpha = fullAlpha, nearShare = fullNear, depth = fullDepth;
    if (reduction > 0) {
        const cv::Size size(std::max(1, int(std::lround(fullSize.width * scale))), std::max(1, int(std::lround(fullSize.height * scale))));
        cv::resize(fullPhoto, photo, size, 0, 0, cv::INTER_AREA);
        cv::resize(fullAlpha, alpha, size, 0, 0, cv::INTER_AREA);
        cv::resize(fullNear, nearShare, size, 0, 0, cv::INTER_AREA);
        cv::resize(fullDepth, depth, size, 0, 0, cv::INTER_AREA);
    }
    const cv::Size size = photo.size();
    const float maxRadius = float(fullMaxRadius * scale);
    const int margin = std::max(1, int(std::lround(std::max(fullSize.width, fullSize.height) / 300.0 * scale)));
    cv::Mat far(size, CV_32F), layer(size, CV_32FC4);
    cv::parallel_for_(cv::Range(0, size.height), [&](const cv::Range &range) {
        for (int y = range.start; y < range.end; ++y) {
            const float *a = alpha.ptr<float>(y), *nr = nearShare.ptr<float>(y), *d = depth.ptr<float>(y), *p = photo.ptr<float>(y);
            float *f = far.ptr<float>(y), *l = layer.ptr<float>(y);
            for (int x = 0; x < size.width; ++x) {
                f[x] = 1 - a[x] - nr[x];
                for (int c = 0; c < 3; ++c) l[x * 4 + c] = p[x * 3 + c];
                l[x * 4 + 3] = std::max(focus - d[x], 0.0f) * maxRadius;
            }
        }
    });
    // Eroded at a quarter of the size (a min filter that wide is costly at full size), thresholded,
    // and never more than the share itself: a pixel of the subject or the near layer is never a source.
    cv::Mat quarterFar;
    cv::resize(far, quarterFar, cv::Size((size.width + 3) / 4, (size.height + 3) / 4), 0, 0, cv::INTER_AREA);
    const int quarterMargin = std::max(1, (margin + 3) / 4);
    cv::erode(quarterFar, quarterFar, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * quarterMargin + 1, 2 * quarterMargin + 1)));
    cv::resize(quarterFar, quarterFar, size, 0, 0, cv::INTER_LINEAR);
    far = cv::min(far, quarterFar);
    far = cv::min(cv::max((far - 0.8f) * 5.0f, 0.0f), 1.0f);
    step(reduction > 0 ? "far layer (reduced)" : "far layer");
    std::vector<cv::Mat> filled = pushPull(layer, far);
    layer.release();
    step("push-pull");
    std::vector<cv::Mat> colours, levelRadii;
    for (auto &level : filled) {
        cv::Mat parts[4];
        cv::split(level, parts);
        cv::Mat colour;
        cv::merge(parts, 3, colour);
        colours.push_back(colour);
        // discBlur takes radii in pixels of its level 0: here, the reduced copy's.
        levelRadii.push_back(parts[3]);
    }
    filled.clear();
    cv::Mat behind = discBlur(colours, levelRadii);
    step("far blur");
    if (gamma != 1) cv::pow(cv::max(behind, 0.0f), 1 / gamma, behind);
    if (reduction > 0) cv::resize(behind, behind, fullSize, 0, 0, cv::INTER_LINEAR);
    step("gamma, enlarged");
    return behind;
}

/// The arguments checked before anything is allocated: what the effect can read and write.
static void checkPortraitArguments(const mbx_cv_image *image, const mbx_cv_image *matte, const mbx_cv_image *disparity,
                                   const mbx_cv_portrait_effect_options *options, const mbx_cv_image *output,
                                   const mbx_cv_portrait_effect_result *result) {
    if (!image || !options || !output || !result) throw Failure{"portrait effect: missing argument"};
    if (!matte && !disparity) throw Failure{"portrait effect: needs a subject matte or depth"};
    if (!image->data || image->width <= 0 || image->height <= 0 || (image->channels != 1 && image->channels != 3 && image->channels != 4) ||
        (image->format != MBX_CV_U8 && image->format != MBX_CV_U16 && image->format != MBX_CV_F32))
        throw Failure{"portrait effect: the photo must be 1, 3 or 4 channels of 8, 16 or 32-bit float samples"};
    if (output->width != image->width || output->height != image->height || output->channels != image->channels ||
        output->format != image->format)
        throw Failure{"portrait effect: the output must have the photo's size and format"};
}

/// The focal plane's disparity, and what chose it: a tapped point (given upright, so turned into
/// the stored frame), the subject matte, a face, or else the nearest region.
static float focalPlane(const cv::Mat &depth, const cv::Mat &subject, bool measured, const mbx_cv_portrait_effect_options *options,
                        mbx_cv_portrait_effect_result *result) {
    const cv::Size size = depth.size();
    const int longSide = std::max(size.width, size.height);
    const bool swaps = options->orientation >= 5 && options->orientation <= 8;
    if (options->focus == MBX_CV_FOCUS_POINT) {
        cv::Rect point(int(std::clamp(options->focus_x, 0.0, 0.999) * (swaps ? size.height : size.width)),
                       int(std::clamp(options->focus_y, 0.0, 0.999) * (swaps ? size.width : size.height)), 1, 1);
        cv::Rect at = storedRect(point, size, options->orientation);
        const int window = std::max(3, longSide / 100);
        cv::Rect around = cv::Rect(at.x - window, at.y - window, 2 * window + 1, 2 * window + 1) & cv::Rect(cv::Point(), size);
        result->focus_from = MBX_CV_FOCUSED_ON_POINT;
        return medianWhere(depth(around), cv::Mat());
    }
    if (!subject.empty()) {
        result->focus_from = MBX_CV_FOCUSED_ON_MATTE;
        return measured ? medianWhere(depth, subject > 0.5f) : 1.0f;
    }
    if (options->face.width > 0) {
        cv::Rect face = cv::Rect(options->face.x, options->face.y, options->face.width, options->face.height) & cv::Rect(cv::Point(), size);
        result->focus_from = MBX_CV_FOCUSED_ON_FACE;
        return medianWhere(depth(face), cv::Mat());
    }
    result->focus_from = MBX_CV_FOCUSED_ON_NEAR_REGION;
    return medianWhere(depth, nearRegion(depth));
}

/// Per pixel: the subject's alpha (a matte at 0.98 and above is the subject whole, its pixels
/// kept exactly; with depth alone, what lies on the focal plane), and the share of the rest that
/// lies in front of the focal plane (the near layer; none when the depth is the matte's estimate).
static void subjectLayers(const cv::Mat &depth, const cv::Mat &subject, float focus, float maxRadius, bool layered, cv::Mat &alpha,
                          cv::Mat &nearShare) {
    const cv::Size size = depth.size();
    alpha.create(size, CV_32F);
    nearShare.create(size, CV_32F);
    cv::parallel_for_(cv::Range(0, size.height), [&](const cv::Range &range) {
        for (int y = range.start; y < range.end; ++y) {
            const float *d = depth.ptr<float>(y), *m = subject.empty() ? nullptr : subject.ptr<float>(y);
            float *a = alpha.ptr<float>(y), *nr = nearShare.ptr<float>(y);
            for (int x = 0; x < size.width; ++x) {
                const float offset = (d[x] - focus) * maxRadius; // signed radius, > 0 in front
                const float s = m ? m[x] : std::clamp(1.5f - std::abs(offset), 0.0f, 1.0f);
                a[x] = std::clamp((s - 0.02f) * (1 / 0.96f), 0.0f, 1.0f);
                nr[x] = layered ? 0.0f : (1 - a[x]) * std::clamp(offset - 0.5f, 0.0f, 1.0f);
            }
        }
    });
}

/// The subject over what lies behind it: only the background's share of each edge pixel changes
/// (blur-fusion edge colours); a cut-out keeps the edges' foreground colours for the alpha to carry.
static cv::Mat compositeSubject(const cv::Mat &photo, const cv::Mat &alpha, const cv::Mat &behind, const cv::Mat &foregroundSmooth,
                                const cv::Mat &backgroundSmooth, bool transparent, bool cutOut) {
    const cv::Size size = photo.size();
    const double smoothScale = double(foregroundSmooth.cols) / size.width;
    cv::Mat rendered(size, CV_32FC3);
    cv::parallel_for_(cv::Range(0, size.height), [&](const cv::Range &range) {
        float f[3], b[3], foreground[3], background[3];
        for (int y = range.start; y < range.end; ++y) {
            const float *a = alpha.ptr<float>(y), *p = photo.ptr<float>(y);
            const float *behindRow = behind.empty() ? nullptr : behind.ptr<float>(y);
            float *o = rendered.ptr<float>(y);
            for (int x = 0; x < size.width; ++x) {
                const float *pixel = p + x * 3;
                if (a[x] >= 1 || (transparent && !cutOut)) { // the subject whole, or nothing to change
                    for (int c = 0; c < 3; ++c) o[x * 3 + c] = pixel[c];
                    continue;
                }
                if (a[x] <= 0) {
                    for (int c = 0; c < 3; ++c) foreground[c] = background[c] = pixel[c];
                } else {
                    sampleLevel(foregroundSmooth, smoothScale, x, y, f);
                    sampleLevel(backgroundSmooth, smoothScale, x, y, b);
                    edgeColours(pixel, a[x], f, b, foreground, background);
                }
                for (int c = 0; c < 3; ++c)
                    o[x * 3 + c] = cutOut ? foreground[c] : pixel[c] + (1 - a[x]) * (behindRow[x * 3 + c] - background[c]);
            }
        }
    });
    return rendered;
}

/// What lies in front of the focal plane, blurred over everything: the near layer, premultiplied,
/// its radius spread outwards (a max filter, worked out at a quarter of the size) so its blur
/// covers what lies behind it, composited in power gamma onto `rendered`.
static void addNearLayer(cv::Mat &rendered, const cv::Mat &photoInPower, const cv::Mat &nearShare, const cv::Mat &depth, float focus,
                         float maxRadius, float gamma, StepClock &step) {
    const cv::Size size = rendered.size();
    cv::Mat nearRadius(size, CV_32F), layer(size, CV_32FC4);
    cv::parallel_for_(cv::Range(0, size.height), [&](const cv::Range &range) {
        for (int y = range.start; y < range.end; ++y) {
            const float *nr = nearShare.ptr<float>(y), *d = depth.ptr<float>(y), *p = photoInPower.ptr<float>(y);
            float *r = nearRadius.ptr<float>(y), *l = layer.ptr<float>(y);
            for (int x = 0; x < size.width; ++x) {
                r[x] = nr[x] > 0.01f ? std::max(d[x] - focus, 0.0f) * maxRadius : 0.0f;
                for (int c = 0; c < 3; ++c) l[x * 4 + c] = p[x * 3 + c] * nr[x];
                l[x * 4 + 3] = nr[x];
            }
        }
    });
    cv::Mat quarter;
    cv::resize(nearRadius, quarter, cv::Size((size.width + 3) / 4, (size.height + 3) / 4), 0, 0, cv::INTER_AREA);
    const int reach = 2 * int(std::ceil(maxRadius / 4)) + 3;
    cv::dilate(quarter, quarter, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(reach, reach)));
    cv::resize(quarter, nearRadius, size, 0, 0, cv::INTER_LINEAR);
    step("near layer");
    cv::Mat blurred = discBlur({layer}, {nearRadius});
    layer.release();
    step("near blur");
    cv::parallel_for_(cv::Range(0, size.height), [&](const cv::Range &range) {
        for (int y = range.start; y < range.end; ++y) {
            const float *bl = blurred.ptr<float>(y);
            float *o = rendered.ptr<float>(y);
            for (int x = 0; x < size.width; ++x) {
                const float coverage = std::clamp(bl[x * 4 + 3], 0.0f, 1.0f);
                if (coverage <= 0) continue;
                for (int c = 0; c < 3; ++c) {
                    // Premultiplied power: colour = (sum c^g a / sum a)^(1/g), times the coverage.
                    float colour = bl[x * 4 + c] / std::max(bl[x * 4 + 3], 1e-6f);
                    if (gamma != 1) colour = std::pow(std::max(colour, 0.0f), 1 / gamma);
                    o[x * 3 + c] = colour * coverage + o[x * 3 + c] * (1 - coverage);
                }
            }
        }
    });
    step("near composite");
}

extern "C" int mbx_cv_portrait_effect(const mbx_cv_image *image, const mbx_cv_image *matte, const mbx_cv_image *disparity,
                                      const mbx_cv_portrait_effect_options *options, mbx_cv_image *output, mbx_cv_plane *alphaOut,
                                      mbx_cv_portrait_effect_result *result, mbx_cv_error *error) {
    return guarded(error, [&] {
        const auto started = std::chrono::steady_clock::now();
        StepClock step;
        checkPortraitArguments(image, matte, disparity, options, output, result);
        const cv::Size size(image->width, image->height);
        const int longSide = std::max(size.width, size.height);
        cv::Mat photo = toRGBFloat(*image);
        step("photo to float");

        // The subject, and the disparity: measured, or the matte's layered estimate
        // (the subject on the focal plane, the rest at the far end).
        cv::Mat subject = matte ? resizedFloat(*matte, size, true, "matte") : cv::Mat();
        cv::Mat depth = disparity ? normalisedDisparity(resizedFloat(*disparity, size, false, "depth"), options->depth_is_distance != 0)
                                  : subject;
        const float focus = focalPlane(depth, subject, disparity != nullptr, options, result);
        result->focus_disparity = focus;
        const float maxRadius = float(options->max_blur * longSide * apertureStrength(options->aperture));
        result->max_radius = maxRadius;
        const bool blurring = options->background == MBX_CV_BACKGROUND_BLUR && maxRadius >= 0.5f;
        step("matte, depth, focus");

        cv::Mat alpha, nearShare;
        subjectLayers(depth, subject, focus, maxRadius, !disparity, alpha, nearShare);
        if (alphaOut && alphaOut->data) {
            cv::Mat target(alphaOut->height, alphaOut->width, CV_8U, alphaOut->data, alphaOut->stride), resized;
            cv::resize(alpha, resized, cv::Size(alphaOut->width, alphaOut->height), 0, 0, cv::INTER_LINEAR);
            resized.convertTo(target, CV_8U, 255);
        }
        cv::Mat foregroundSmooth, backgroundSmooth;
        estimateColours(photo, alpha, foregroundSmooth, backgroundSmooth);
        step("alpha, colour estimate");

        const float gamma = float(1 + 3 * std::clamp(options->highlights, 0.0, 1.0));
        cv::Mat photoInPower; // what the layers blur: the photo in power gamma (highlights bloom)
        if (blurring && gamma != 1) cv::pow(photo, gamma, photoInPower);
        else photoInPower = photo;
        cv::Mat behind; // what the subject's edges are composited over, full size
        if (options->background == MBX_CV_BACKGROUND_COLOUR) {
            behind = cv::Mat(size, CV_32FC3, cv::Scalar(options->colour[0], options->colour[1], options->colour[2]));
        } else if (options->background == MBX_CV_BACKGROUND_IMAGE) {
            if (!options->background_path) throw Failure{"portrait effect: no background image"};
            behind = replacementBackground(options->background_path, size, options->orientation);
        } else if (blurring) {
            behind = blurredFarLayer(photoInPower, alpha, nearShare, depth, focus, maxRadius, gamma, step);
        }

        const bool cutOut = options->background == MBX_CV_BACKGROUND_TRANSPARENT;
        const bool transparent = cutOut || (!blurring && behind.empty());
        cv::Mat rendered = compositeSubject(photo, alpha, behind, foregroundSmooth, backgroundSmooth, transparent, cutOut);
        behind.release();
        step("composite");

        if (blurring && cv::countNonZero(nearShare > 0.01f) > 0)
            addNearLayer(rendered, photoInPower, nearShare, depth, focus, maxRadius, gamma, step);
        cv::min(cv::max(rendered, 0.0f), 1.0f, rendered);
        fromRGBFloat(rendered, *output);
        step("output");
        result->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    });
}
