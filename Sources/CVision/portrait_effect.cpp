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
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

namespace mbx {

namespace {

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

/// Push-pull filling: where `weight` is below 1 the image is completed from
/// coarser averages of the weighted pixels around, so a layer hidden behind
/// another gets plausible content of its own (never the occluder's).
cv::Mat pushPull(const cv::Mat &image, const cv::Mat &weight) {
    std::vector<cv::Mat> premultiplied{}, weights{};
    const int n = image.channels();
    cv::Mat weighted;
    {
        std::vector<cv::Mat> planes;
        cv::split(image, planes);
        for (auto &p : planes) p = p.mul(weight);
        cv::merge(planes, weighted);
    }
    premultiplied.push_back(weighted);
    weights.push_back(weight);
    while (std::max(premultiplied.back().cols, premultiplied.back().rows) > 2) {
        cv::Size half((premultiplied.back().cols + 1) / 2, (premultiplied.back().rows + 1) / 2);
        cv::Mat p, w;
        cv::resize(premultiplied.back(), p, half, 0, 0, cv::INTER_AREA);
        cv::resize(weights.back(), w, half, 0, 0, cv::INTER_AREA);
        premultiplied.push_back(p);
        weights.push_back(w);
    }
    // The coarsest level normalised, then each finer level composited over the one below.
    cv::Mat filled;
    {
        std::vector<cv::Mat> planes;
        cv::split(premultiplied.back(), planes);
        cv::Mat w = cv::max(weights.back(), 1e-6f);
        for (auto &p : planes) cv::divide(p, w, p);
        cv::merge(planes, filled);
    }
    for (int level = int(premultiplied.size()) - 2; level >= 0; --level) {
        cv::Mat up;
        cv::resize(filled, up, premultiplied[level].size(), 0, 0, cv::INTER_LINEAR);
        // A coarse average of partly covered pixels is premultiplied: normalise it by its coverage first.
        cv::Mat w = cv::min(weights[level], 1.0f), rest = 1.0f - w;
        std::vector<cv::Mat> planes, upPlanes;
        cv::split(premultiplied[level], planes);
        cv::split(up, upPlanes);
        for (int c = 0; c < n; ++c) planes[c] = planes[c] + upPlanes[c].mul(rest);
        cv::merge(planes, filled);
    }
    return filled;
}

/// Each pixel of `image` replaced by the mean of a disc of its own radius
/// (`radius`, in this image's pixels) around it, where `need` is set; the
/// disc's rows come from per-row prefix sums with fractional ends, so the
/// cost is O(radius) and the disc's edge is anti-aliased.
cv::Mat gatherDiscs(const cv::Mat &image, const cv::Mat &radius, const cv::Mat &need) {
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
    cv::Mat out = image.clone();
    cv::parallel_for_(cv::Range(0, rows), [&](const cv::Range &range) {
        float sum[4];
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
    return out;
}

/// Disc blur with a radius per pixel (full-resolution pixels): radii below 4
/// on the photo itself; larger ones on the pyramid level where they are 4-8
/// px, blended with the next level, then brought back to full size. A
/// blurred region holds no detail finer than its disc, so the reduced levels
/// lose nothing a viewer sees (the disc's edge softens by a level's pixel).
cv::Mat discBlur(const cv::Mat &image, const cv::Mat &radius) {
    cv::Mat level;
    cv::Mat safeRadius = cv::max(radius, 1e-3f);
    cv::log(safeRadius / 4.0f, level);
    level *= 1.0f / std::log(2.0f);
    level = cv::max(level, 0.0f);
    double highest = 0;
    cv::minMaxLoc(level, nullptr, &highest);
    const int levels = int(std::floor(highest)) + 2;
    cv::Mat result = cv::Mat::zeros(image.size(), image.type());
    cv::Mat weightSum = cv::Mat::zeros(image.size(), CV_32F);
    for (int k = 0; k < levels; ++k) {
        // This level's share of each pixel: 1 - |level - k| within one level.
        cv::Mat share = 1.0f - cv::abs(level - float(k));
        share = cv::max(share, 0.0f);
        if (k == 0) share.setTo(1.0f, level <= 0.0f);
        if (cv::countNonZero(share > 0) == 0) continue;
        const double scale = std::pow(0.5, k);
        cv::Size size(std::max(1, int(std::lround(image.cols * scale))), std::max(1, int(std::lround(image.rows * scale))));
        cv::Mat small, smallRadius, smallShare;
        if (k == 0) {
            small = image;
            smallRadius = radius;
            smallShare = share;
        } else {
            cv::resize(image, small, size, 0, 0, cv::INTER_AREA);
            cv::resize(radius, smallRadius, size, 0, 0, cv::INTER_AREA);
            smallRadius *= scale;
            cv::resize(share, smallShare, size, 0, 0, cv::INTER_AREA);
        }
        cv::Mat need = smallShare > 0;
        cv::dilate(need, need, cv::Mat(), cv::Point(-1, -1), 2);
        cv::Mat blurred = gatherDiscs(small, smallRadius, need);
        if (k > 0) cv::resize(blurred, blurred, image.size(), 0, 0, cv::INTER_LINEAR);
        cv::Mat spread;
        cv::Mat shares[] = {share, share, share, share};
        cv::merge(shares, image.channels(), spread);
        result += blurred.mul(spread);
        weightSum += share;
    }
    cv::Mat spread;
    cv::Mat sums[] = {weightSum, weightSum, weightSum, weightSum};
    cv::merge(sums, image.channels(), spread);
    cv::divide(result, cv::max(spread, 1e-6f), result);
    return result;
}

/// Blur-fusion (Forte & Pitie 2021): the foreground and background colours
/// at soft matte edges, so a cut-out carries no fringe of the old background
/// and the background's share of an edge pixel can be swapped alone.
void estimateColours(const cv::Mat &image, const cv::Mat &alpha, cv::Mat &foreground, cv::Mat &background) {
    const int longSide = std::max(image.cols, image.rows);
    foreground = image.clone();
    background = image.clone();
    for (int pass = 0; pass < 2; ++pass) {
        int kernel = pass == 0 ? std::max(9, longSide / 40) : std::max(3, longSide / 400);
        kernel |= 1;
        cv::Size box(kernel, kernel);
        cv::Mat a3, inverse3, alphaBlur, inverseBlur;
        cv::Mat alphas[] = {alpha, alpha, alpha};
        cv::merge(alphas, 3, a3);
        inverse3 = cv::Scalar::all(1) - a3;
        cv::blur(alpha, alphaBlur, box);
        cv::Mat inverse = 1.0f - alpha;
        cv::blur(inverse, inverseBlur, box);
        cv::Mat fBlur, bBlur;
        cv::blur(foreground.mul(a3), fBlur, box);
        cv::blur(background.mul(inverse3), bBlur, box);
        cv::Mat ab[] = {alphaBlur, alphaBlur, alphaBlur}, ib[] = {inverseBlur, inverseBlur, inverseBlur};
        cv::Mat alphaBlur3, inverseBlur3;
        cv::merge(ab, 3, alphaBlur3);
        cv::merge(ib, 3, inverseBlur3);
        cv::divide(fBlur, cv::max(alphaBlur3, 1e-5f), fBlur);
        cv::divide(bBlur, cv::max(inverseBlur3, 1e-5f), bBlur);
        // The residual of the compositing equation, given to both sides by their share.
        cv::Mat residual = image - a3.mul(fBlur) - inverse3.mul(bBlur);
        foreground = fBlur + a3.mul(residual);
        background = bBlur + inverse3.mul(residual);
        cv::min(cv::max(foreground, 0.0f), 1.0f, foreground);
        cv::min(cv::max(background, 0.0f), 1.0f, background);
    }
}

cv::Mat channels3(const cv::Mat &plane) {
    cv::Mat out, planes[] = {plane, plane, plane};
    cv::merge(planes, 3, out);
    return out;
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

extern "C" int mbx_cv_portrait_effect(const mbx_cv_image *image, const mbx_cv_image *matte, const mbx_cv_image *disparity,
                                      const mbx_cv_portrait_effect_options *options, mbx_cv_image *output, mbx_cv_plane *alphaOut,
                                      mbx_cv_portrait_effect_result *result, mbx_cv_error *error) {
    return guarded(error, [&] {
        const auto started = std::chrono::steady_clock::now();
        if (!image || !options || !output || !result) throw Failure{"portrait effect: missing argument"};
        if (!matte && !disparity) throw Failure{"portrait effect: needs a subject matte or depth"};
        if (output->width != image->width || output->height != image->height || output->channels != image->channels ||
            output->format != image->format)
            throw Failure{"portrait effect: the output must have the photo's size and format"};
        if (!image->data || image->width <= 0 || image->height <= 0 || (image->channels != 1 && image->channels != 3 && image->channels != 4) ||
            (image->format != MBX_CV_U8 && image->format != MBX_CV_U16 && image->format != MBX_CV_F32))
            throw Failure{"portrait effect: the photo must be 1, 3 or 4 channels of 8, 16 or 32-bit float samples"};
        const cv::Size size(image->width, image->height);
        const int longSide = std::max(size.width, size.height);
        cv::Mat photo = toRGBFloat(*image);

        // The subject, and the disparity: measured, or the matte's layered estimate.
        cv::Mat subject = matte ? resizedFloat(*matte, size, true, "matte") : cv::Mat();
        cv::Mat depth;
        if (disparity) depth = normalisedDisparity(resizedFloat(*disparity, size, false, "depth"), options->depth_is_distance != 0);
        else depth = subject.clone(); // subject on the focal plane, the rest at the far end

        // The focal plane.
        float focus;
        if (options->focus == MBX_CV_FOCUS_POINT) {
            cv::Rect point(int(std::clamp(options->focus_x, 0.0, 1.0) * ((options->orientation >= 5 && options->orientation <= 8) ? size.height : size.width)),
                           int(std::clamp(options->focus_y, 0.0, 1.0) * ((options->orientation >= 5 && options->orientation <= 8) ? size.width : size.height)), 1, 1);
            cv::Rect at = storedRect(point, size, options->orientation);
            const int window = std::max(3, longSide / 100);
            cv::Rect around = cv::Rect(at.x - window, at.y - window, 2 * window + 1, 2 * window + 1) & cv::Rect(cv::Point(), size);
            focus = medianWhere(depth(around), cv::Mat());
            result->focus_from = MBX_CV_FOCUSED_ON_POINT;
        } else if (!subject.empty()) {
            focus = disparity ? medianWhere(depth, subject > 0.5f) : 1.0f;
            result->focus_from = MBX_CV_FOCUSED_ON_MATTE;
        } else if (options->face.width > 0) {
            cv::Rect face = cv::Rect(options->face.x, options->face.y, options->face.width, options->face.height) & cv::Rect(cv::Point(), size);
            focus = medianWhere(depth(face), cv::Mat());
            result->focus_from = MBX_CV_FOCUSED_ON_FACE;
        } else {
            focus = medianWhere(depth, nearRegion(depth));
            result->focus_from = MBX_CV_FOCUSED_ON_NEAR_REGION;
        }
        result->focus_disparity = focus;
        const float maxRadius = float(options->max_blur * longSide * apertureStrength(options->aperture));
        result->max_radius = maxRadius;

        cv::Mat offset = depth - focus; // > 0: in front of the focal plane
        cv::Mat radius = cv::abs(offset) * maxRadius;
        // With depth alone, the subject is what lies on the focal plane (blur under about a pixel).
        if (subject.empty()) {
            subject = 1.5f - radius;
            subject = cv::min(cv::max(subject, 0.0f), 1.0f);
        }
        // A matte at 0.98 and above is the subject whole: its pixels stay exactly as they were.
        cv::Mat alpha = cv::min(cv::max((subject - 0.02f) * (1 / 0.96f), 0.0f), 1.0f);
        if (alphaOut && alphaOut->data) {
            cv::Mat bytes, target(alphaOut->height, alphaOut->width, CV_8U, alphaOut->data, alphaOut->stride);
            cv::Mat resized;
            cv::resize(alpha, resized, cv::Size(alphaOut->width, alphaOut->height), 0, 0, cv::INTER_LINEAR);
            resized.convertTo(target, CV_8U, 255);
        }

        cv::Mat foreground, backgroundColour;
        estimateColours(photo, alpha, foreground, backgroundColour);
        cv::Mat rendered;
        if (options->background == MBX_CV_BACKGROUND_TRANSPARENT) {
            rendered = foreground; // the alpha plane carries the cut
        } else {
            cv::Mat behind; // what the subject's edges are composited over
            const float gamma = float(1 + 3 * std::clamp(options->highlights, 0.0, 1.0));
            cv::Mat outside = 1.0f - alpha;
            cv::Mat nearShare = outside.mul(cv::min(cv::max(offset * maxRadius - 0.5f, 0.0f), 1.0f));
            if (!disparity) nearShare = cv::Mat::zeros(size, CV_32F);
            cv::Mat farShare = outside - nearShare;
            if (options->background == MBX_CV_BACKGROUND_COLOUR) {
                behind = cv::Mat(size, CV_32FC3, cv::Scalar(options->colour[0], options->colour[1], options->colour[2]));
            } else if (options->background == MBX_CV_BACKGROUND_IMAGE) {
                if (!options->background_path) throw Failure{"portrait effect: no background image"};
                behind = replacementBackground(options->background_path, size, options->orientation);
            } else if (maxRadius < 0.5f) {
                behind = backgroundColour; // nothing blurs: the photo comes back as it was
            } else {
                // The far layer, filled in where the subject and nearer things hide it (from pixels
                // clearly behind, a little away from the subject's edge), then blurred.
                cv::Mat confident;
                const int margin = std::max(2, longSide / 300);
                cv::erode(farShare, confident, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * margin + 1, 2 * margin + 1)));
                confident = cv::min(cv::max((confident - 0.8f) * 5.0f, 0.0f), 1.0f);
                cv::Mat layer;
                cv::Mat farRadius = cv::max(-offset, 0.0f) * maxRadius;
                std::vector<cv::Mat> parts;
                cv::split(backgroundColour, parts);
                parts.push_back(farRadius);
                cv::merge(parts, layer);
                cv::Mat filled = pushPull(layer, confident);
                cv::split(filled, parts);
                cv::Mat filledRadius = parts[3];
                parts.pop_back();
                cv::merge(parts, layer);
                if (gamma != 1) cv::pow(cv::max(layer, 0.0f), gamma, layer);
                behind = discBlur(layer, filledRadius);
                if (gamma != 1) cv::pow(cv::max(behind, 0.0f), 1 / gamma, behind);
            }
            // The subject over it: only the background's share of each edge pixel changes.
            rendered = photo + channels3(outside).mul(behind - backgroundColour);
            if (options->background == MBX_CV_BACKGROUND_BLUR && cv::countNonZero(nearShare > 0.01f) > 0 && maxRadius >= 0.5f) {
                // The near layer, premultiplied, its radius spread outwards so its blur covers what lies behind.
                cv::Mat nearRadius = cv::max(offset, 0.0f) * maxRadius;
                nearRadius.setTo(0, nearShare <= 0.01f);
                const int reach = std::max(3, int(std::ceil(maxRadius)) * 2 + 1);
                cv::dilate(nearRadius, nearRadius, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(reach, reach)));
                std::vector<cv::Mat> parts;
                cv::split(photo, parts);
                for (auto &p : parts) {
                    if (gamma != 1) cv::pow(cv::max(p, 0.0f), gamma, p);
                    p = p.mul(nearShare);
                }
                parts.push_back(nearShare);
                cv::Mat layer;
                cv::merge(parts, layer);
                cv::Mat blurred = discBlur(layer, nearRadius);
                cv::split(blurred, parts);
                cv::Mat coverage = cv::min(cv::max(parts[3], 0.0f), 1.0f);
                for (int c = 0; c < 3; ++c) {
                    if (gamma != 1) {
                        // Premultiplied power: colour = (sum c^g a / sum a)^(1/g), times the coverage.
                        cv::Mat normalised;
                        cv::divide(parts[c], cv::max(parts[3], 1e-6f), normalised);
                        cv::pow(cv::max(normalised, 0.0f), 1 / gamma, normalised);
                        parts[c] = normalised.mul(coverage);
                    }
                }
                parts.pop_back();
                cv::Mat nearColour;
                cv::merge(parts, nearColour);
                rendered = nearColour + rendered.mul(channels3(1.0f - coverage));
            }
        }
        cv::min(cv::max(rendered, 0.0f), 1.0f, rendered);
        fromRGBFloat(rendered, *output);
        result->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    });
}
