// Portrait effects: synthetic depth of field set after capture, background
// replacement and cut-outs, from a photo's subject matte and depth.
//
// After Wadhwa et al. 2018 (Google's Portrait mode: depth made edge-true,
// then every pixel blurred by a disc whose size follows its distance from the
// focal plane), BokehMe (Peng et al. 2022: radius = K * |disparity - focus
// disparity|; blurring image^gamma and taking the 1/gamma power makes
// highlights bloom) and Dr.Bokeh (2024: what a nearer layer hides is filled
// in first, so the subject's colours never bleed outwards).
//
// This file is the entry: the arguments, the disparity read and scaled, the
// focal plane, and the background (blurred, replaced or cut away). The scene
// (each pixel's fragments, with depth refined) is portrait_scene.cpp, the blur
// portrait_layers.cpp.
#include "bridge.hpp"
#include "portrait_scene.hpp"
#include "soft_blur.hpp"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <opencv2/imgproc.hpp>
#include <string>
#include <type_traits>
#include <vector>

/// A render's edge-true depth at its working size (CV_32F, 0 far ... 1 near), kept for a later render.
struct mbx_cv_scene_depth {
    cv::Mat depth;
};

namespace mbx {

namespace {

/// An image's pixels as a cv::Mat over the same memory (no copy).
cv::Mat wrap(const mbx_cv_image &image) {
    const int depth = image.format == MBX_CV_U16 ? CV_16U : image.format == MBX_CV_F32 ? CV_32F : CV_8U;
    return cv::Mat(image.height, image.width, CV_MAKETYPE(depth, image.channels), image.data, image.stride);
}

/// Writes a row of float RGB into the output in its own format (clamped, rounded; grey as luma;
/// an alpha channel left as it is).
void writeRow(const cv::Mat &output, int y, const float *rgb) {
    const int channels = output.channels(), cols = output.cols;
    auto store = [&](auto *row, float scale) {
        using Sample = std::remove_pointer_t<decltype(row)>;
        for (int x = 0; x < cols; ++x) {
            const float *p = rgb + 3 * x;
            auto *o = row + x * channels;
            auto convert = [&](float v) {
                v = std::clamp(v, 0.0f, 1.0f) * scale;
                return std::is_floating_point_v<Sample> ? Sample(v) : Sample(v + 0.5f);
            };
            if (channels >= 3) {
                for (int c = 0; c < 3; ++c) o[c] = convert(p[c]);
            } else {
                o[0] = convert(0.299f * p[0] + 0.587f * p[1] + 0.114f * p[2]);
            }
        }
    };
    switch (output.depth()) {
    case CV_8U: store(const_cast<uchar *>(output.ptr<uchar>(y)), 255.0f); break;
    case CV_16U: store(const_cast<ushort *>(output.ptr<ushort>(y)), 65535.0f); break;
    default: store(const_cast<float *>(output.ptr<float>(y)), 1.0f); break;
    }
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

/// The sharpest near region: where the photo itself is in focus (a phone focused on its subject,
/// and its lens blurred the rest a little), weighted towards what is nearer than Otsu's split of
/// the disparity and within the middle of the frame, where a subject usually stands.
float sharpestNearRegion(const PortraitScene &scene, float &spread) {
    const cv::Mat &depth = scene.subjectDisparity;
    cv::Mat luma, detail;
    cv::cvtColor(scene.working, luma, cv::COLOR_RGB2GRAY);
    cv::Laplacian(luma, detail, CV_32F, 3);
    detail = cv::abs(detail);
    softBlur(detail, detail, 2.0);
    cv::Mat bytes, near;
    depth.convertTo(bytes, CV_8U, 255);
    cv::threshold(bytes, near, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
    // Weighted histograms of the disparity and of its distance from the focus, 1/1024 wide bins.
    constexpr int bins = 1024;
    std::vector<double> histogram(bins, 0.0);
    const int rows = depth.rows, cols = depth.cols;
    auto bin = [&](float value) { return std::clamp(int(value * bins), 0, bins - 1); };
    auto weightOf = [&](int y, int x) { return detail.at<float>(y, x) * (near.at<uchar>(y, x) ? 1.0f : 0.25f); };
    double total = 0;
    for (int y = rows / 8; y < rows - rows / 8; ++y)
        for (int x = cols / 8; x < cols - cols / 8; ++x) {
            const float w = weightOf(y, x);
            histogram[size_t(bin(depth.at<float>(y, x)))] += w;
            total += w;
        }
    if (total <= 0) return medianWhere(depth, near);
    auto middleOf = [&](const std::vector<double> &counts) {
        double running = 0;
        for (int i = 0; i < bins; ++i) {
            running += counts[size_t(i)];
            if (running >= total / 2) return (float(i) + 0.5f) / bins;
        }
        return 1.0f;
    };
    const float focus = middleOf(histogram);
    // How far the in-focus region's depth spreads about it (the weighted median deviation).
    std::fill(histogram.begin(), histogram.end(), 0.0);
    for (int y = rows / 8; y < rows - rows / 8; ++y)
        for (int x = cols / 8; x < cols - cols / 8; ++x) histogram[size_t(bin(std::abs(depth.at<float>(y, x) - focus)))] += weightOf(y, x);
    spread = middleOf(histogram);
    return focus;
}

/// The focal plane's disparity, and what chose it: a tapped point (given upright, so turned into
/// the stored frame), the matte's subject, a face, or else the sharpest near region. `depthOfField`
/// is how far in disparity either side of it stays sharp: a subject found in the depth alone (a
/// face, a pet) keeps its own depth sharp, as Photos does, not only its nearest plane.
float focalPlane(const PortraitScene &scene, const mbx_cv_portrait_effect_options *options, mbx_cv_portrait_effect_result *result,
                 float &depthOfField) {
    depthOfField = 0;
    // A subject's spread, kept sharp: 1.5 median deviations, at least 0.015 and at most 0.06 of the range.
    auto keep = [&](float spread) { depthOfField = std::clamp(1.5f * spread, 0.015f, 0.06f); };
    const cv::Size working = scene.subjectDisparity.size();
    const double toWorking = double(working.width) / scene.size.width;
    const int longSide = std::max(working.width, working.height);
    const bool swaps = options->orientation >= 5 && options->orientation <= 8;
    if (options->focus == MBX_CV_FOCUS_DISPARITY) {
        result->focus_from = MBX_CV_FOCUSED_ON_DISPARITY;
        depthOfField = float(std::clamp(options->focus_band, 0.0, 1.0));
        return float(std::clamp(options->focus_disparity, 0.0, 1.0));
    }
    if (options->focus == MBX_CV_FOCUS_POINT) {
        cv::Rect point(int(std::clamp(options->focus_x, 0.0, 0.999) * (swaps ? working.height : working.width)),
                       int(std::clamp(options->focus_y, 0.0, 0.999) * (swaps ? working.width : working.height)), 1, 1);
        cv::Rect at = storedRect(point, working, options->orientation);
        const int window = std::max(3, longSide / 100);
        cv::Rect around = cv::Rect(at.x - window, at.y - window, 2 * window + 1, 2 * window + 1) & cv::Rect(cv::Point(), working);
        result->focus_from = MBX_CV_FOCUSED_ON_POINT;
        // The fragment that shows there: the subject's where its alpha is at least half.
        const int fullX = std::min(scene.size.width - 1, int((at.x + 0.5) / toWorking));
        const int fullY = std::min(scene.size.height - 1, int((at.y + 0.5) / toWorking));
        SceneRows row(scene);
        row.load(fullY);
        const bool subject = row.alpha[size_t(fullX)] >= 0.5f;
        return medianWhere((subject ? scene.subjectDisparity : scene.behindDisparity)(around), cv::Mat());
    }
    if (scene.hasMatte) {
        result->focus_from = MBX_CV_FOCUSED_ON_MATTE;
        return scene.subjectPlane;
    }
    if (options->face.width > 0) {
        cv::Rect face(int(options->face.x * toWorking), int(options->face.y * toWorking), std::max(1, int(options->face.width * toWorking)),
                      std::max(1, int(options->face.height * toWorking)));
        face &= cv::Rect(cv::Point(), working);
        if (!face.empty()) {
            result->focus_from = MBX_CV_FOCUSED_ON_FACE;
            const cv::Mat window = scene.subjectDisparity(face);
            const float focus = medianWhere(window, cv::Mat());
            keep(medianWhere(cv::abs(window - focus), cv::Mat()));
            return focus;
        }
    }
    result->focus_from = MBX_CV_FOCUSED_ON_NEAR_REGION;
    float spread = 0;
    const float focus = sharpestNearRegion(scene, spread);
    keep(spread);
    return focus;
}

/// A replacement background as large as the photo, in stored orientation:
/// the upright image scaled to cover the upright photo and centred (8-bit RGB).
cv::Mat replacementBackground(const mbx_cv_image &image, cv::Size storedSize, int orientation) {
    const bool swaps = orientation >= 5 && orientation <= 8;
    cv::Size uprightSize = swaps ? cv::Size(storedSize.height, storedSize.width) : storedSize;
    cv::Mat rgb;
    cv::cvtColor(toBGR8(image, "background image"), rgb, cv::COLOR_BGR2RGB);
    const double scale = std::max(double(uprightSize.width) / rgb.cols, double(uprightSize.height) / rgb.rows);
    cv::Mat resized;
    cv::resize(rgb, resized, cv::Size(std::max(uprightSize.width, int(std::ceil(rgb.cols * scale))),
                                      std::max(uprightSize.height, int(std::ceil(rgb.rows * scale)))),
               0, 0, scale < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
    cv::Rect centre((resized.cols - uprightSize.width) / 2, (resized.rows - uprightSize.height) / 2, uprightSize.width, uprightSize.height);
    return stored(resized(centre).clone(), orientation);
}

/// The arguments checked before anything is allocated: what the effect can read and write.
void checkPortraitArguments(const mbx_cv_image *image, const mbx_cv_image *matte, const mbx_cv_image *disparity,
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

} // namespace

} // namespace mbx

using namespace mbx;

/// The matte (0...1, at its own size) and the disparity (0 far ... 1 near; reduced to 1024 px
/// when larger: it is worked with at that size) as given.
static void readSources(const mbx_cv_image *matte, const mbx_cv_image *disparity, const mbx_cv_portrait_effect_options *options, cv::Mat &subject,
                        cv::Mat &depth) {
    if (matte) {
        subject = toFloat(*matte, "matte");
        subject *= matte->format == MBX_CV_U8 ? 1.0 / 255 : matte->format == MBX_CV_U16 ? 1.0 / 65535 : 1.0;
        cv::min(cv::max(subject, 0.0f), 1.0f, subject);
    }
    if (disparity) {
        cv::Mat values = toFloat(*disparity, "depth");
        const int longSide = std::max(values.cols, values.rows);
        if (longSide > 1024) {
            const double scale = 1024.0 / longSide;
            cv::resize(values, values, cv::Size(std::max(1, int(values.cols * scale)), std::max(1, int(values.rows * scale))), 0, 0, cv::INTER_AREA);
        }
        depth = normalisedDisparity(values, options->depth_is_distance != 0);
    }
}

/// A replaced or transparent background: the subject over the new background, or alone (its
/// own colours; the alpha says how much shows).
static void replaceBackground(const PortraitScene &scene, float focus, const mbx_cv_portrait_effect_options *options, const cv::Mat &output,
                              mbx_cv_plane *alphaOut) {
    cv::Mat behind; // 8-bit RGB at the photo's size (a float copy would be four times larger)
    if (options->background == MBX_CV_BACKGROUND_IMAGE) {
        if (!options->background_image) throw Failure{"portrait effect: no background image"};
        behind = replacementBackground(*options->background_image, scene.size, options->orientation);
    }
    cv::Mat alpha;
    if (alphaOut && alphaOut->data) alpha = cv::Mat(alphaOut->height, alphaOut->width, CV_8U, alphaOut->data, alphaOut->stride);
    const bool alphaFull = !alpha.empty() && alpha.size() == scene.size;
    cv::Mat shares = !alpha.empty() && !alphaFull ? cv::Mat(scene.size, CV_32F) : cv::Mat();
    const bool cutOut = options->background == MBX_CV_BACKGROUND_TRANSPARENT;
    subjectLayer(scene, focus, [&](int y, const float *colour, const float *share) {
        std::vector<float> rgb(size_t(scene.size.width) * 3), own(size_t(scene.size.width) * 3);
        if (cutOut) photoRow(scene.photo, y, own.data());
        const uchar *b = behind.empty() ? nullptr : behind.ptr<uchar>(y);
        for (int x = 0; x < scene.size.width; ++x) {
            const float s = share[x];
            for (int k = 0; k < 3; ++k) {
                const size_t i = size_t(3 * x + k);
                const float back = b ? float(b[i]) / 255 : options->colour[k];
                rgb[i] = cutOut ? (s > 1e-4f ? colour[i] / s : own[i]) : colour[i] + (1 - s) * back;
            }
        }
        writeRow(output, y, rgb.data());
        if (alphaFull) {
            uchar *a = alpha.ptr<uchar>(y);
            for (int x = 0; x < scene.size.width; ++x) a[x] = uchar(std::clamp(share[x], 0.0f, 1.0f) * 255 + 0.5f);
        } else if (!shares.empty()) {
            std::copy(share, share + scene.size.width, shares.ptr<float>(y));
        }
    });
    if (!shares.empty()) {
        cv::Mat resized;
        cv::resize(shares, resized, alpha.size(), 0, 0, cv::INTER_LINEAR);
        resized.convertTo(alpha, CV_8U, 255);
    }
}

extern "C" void mbx_cv_scene_depth_free(mbx_cv_scene_depth *depth) { delete depth; }

extern "C" int mbx_cv_portrait_effect(const mbx_cv_image *image, const mbx_cv_image *matte, const mbx_cv_image *disparity,
                                      const mbx_cv_portrait_effect_options *options, mbx_cv_image *output, mbx_cv_plane *alphaOut,
                                      mbx_cv_portrait_effect_result *result, mbx_cv_error *error) {
    return guarded(error, [&] {
        const auto started = std::chrono::steady_clock::now();
        StepClock step;
        checkPortraitArguments(image, matte, disparity, options, output, result);
        result->depth = nullptr;
        const cv::Size size(image->width, image->height);
        const int longSide = std::max(size.width, size.height);
        // Rows are written while others are still read: an output over the photo itself reads a copy.
        const cv::Mat target = wrap(*output);
        const cv::Mat photo = output->data == image->data ? wrap(*image).clone() : wrap(*image);
        cv::Mat subject, depth;
        readSources(matte, disparity, options, subject, depth);
        step("photo, matte, depth read");
        const cv::Mat reused = options->depth_from && !depth.empty() ? options->depth_from->depth : cv::Mat();
        cv::Mat kept;
        const bool leaveGroundOut = options->leave_ground_out != 0 && options->background != MBX_CV_BACKGROUND_BLUR;
        const PortraitScene scene =
            buildScene(photo, subject, depth, options->orientation, step, reused, options->keep_depth ? &kept : nullptr, leaveGroundOut);
        result->depth = kept.empty() ? nullptr : new mbx_cv_scene_depth{kept};
        float depthOfField = 0;
        const float focus = focalPlane(scene, options, result, depthOfField);
        result->focus_disparity = focus;
        result->sharp_band = depthOfField;
        const std::string note = scene.groundNote ? scene.groundNote : "";
        const size_t noteLength = std::min(note.size(), sizeof(result->depth_note) - 1);
        note.copy(result->depth_note, noteLength);
        result->depth_note[noteLength] = 0;
        const float maxRadius = float(options->max_blur * longSide * std::clamp(options->strength, 0.0, 1.0));
        result->max_radius = maxRadius;
        step("focus");

        if (options->background == MBX_CV_BACKGROUND_BLUR) {
            if (maxRadius < 0.5f) {
                if (target.data != photo.data) photo.copyTo(target);
            } else {
                const float gamma = float(1 + 3 * std::clamp(options->highlights, 0.0, 1.0));
                renderDepthOfField(scene, focus, depthOfField, maxRadius, gamma, [&](int y, const float *rgb) { writeRow(target, y, rgb); }, step);
            }
        } else {
            replaceBackground(scene, focus, options, target, alphaOut);
            step("background replaced");
        }
        result->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    });
}
