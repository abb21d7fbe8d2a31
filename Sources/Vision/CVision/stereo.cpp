// Disparity from a stereo pair: semi-global matching on grey views (the
// left border matched too), holes filled from the background side, then an edge-aware weighted median at
// the pixels where it matters (holes and depth edges).
#include "bridge.hpp"
#include "rectification.hpp"
#include <algorithm>
#include <cmath>
#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>
#include <vector>

namespace {

/// Fills each run of invalid pixels (< 0) along its row with the smaller of
/// the two valid neighbours: holes are mostly occlusions, which belong to the
/// background.
void fillFromBackground(cv::Mat &disparity) {
    for (int y = 0; y < disparity.rows; y++) {
        float *row = disparity.ptr<float>(y);
        int x = 0;
        while (x < disparity.cols) {
            if (row[x] >= 0) { x++; continue; }
            int start = x;
            while (x < disparity.cols && row[x] < 0) x++;
            float left = start > 0 ? row[start - 1] : -1, right = x < disparity.cols ? row[x] : -1;
            float value = left < 0 ? right : right < 0 ? left : std::min(left, right);
            std::fill(row + start, row + x, std::max(value, 0.f));
        }
    }
}

/// Weighted median of the disparities in a (2r+1)² window, each neighbour
/// weighted by its colour likeness to the centre; unmatched neighbours count
/// little. Disparities are binned per pixel and the median bin's weighted
/// mean keeps sub-pixel precision. Runs only where `todo` is set.
cv::Mat weightedMedian(const cv::Mat &disparity, const cv::Mat &valid, const cv::Mat &guide, const cv::Mat &todo,
                       int maxDisparity, int radius, float sigmaColour) {
    cv::Mat out = disparity.clone();
    std::vector<float> likeness(766);
    for (int i = 0; i < 766; i++) likeness[i] = std::exp(-i / (3 * sigmaColour));
    const int width = disparity.cols, height = disparity.rows;
    cv::parallel_for_(cv::Range(0, height), [&](const cv::Range &rows) {
        std::vector<float> weight(maxDisparity + 1), weighted(maxDisparity + 1);
        for (int y = rows.start; y < rows.end; y++) {
            const uchar *want = todo.ptr<uchar>(y);
            for (int x = 0; x < width; x++) {
                if (!want[x]) continue;
                const cv::Vec3b centre = guide.at<cv::Vec3b>(y, x);
                std::fill(weight.begin(), weight.end(), 0.f);
                std::fill(weighted.begin(), weighted.end(), 0.f);
                float total = 0;
                for (int yy = std::max(0, y - radius); yy <= std::min(height - 1, y + radius); yy++) {
                    const float *d = disparity.ptr<float>(yy);
                    const cv::Vec3b *g = guide.ptr<cv::Vec3b>(yy);
                    const uchar *v = valid.ptr<uchar>(yy);
                    for (int xx = std::max(0, x - radius); xx <= std::min(width - 1, x + radius); xx++) {
                        int distance = std::abs(centre[0] - g[xx][0]) + std::abs(centre[1] - g[xx][1]) +
                                       std::abs(centre[2] - g[xx][2]);
                        float w = likeness[distance] * (v[xx] ? 1.f : 0.05f);
                        int bin = std::min(maxDisparity, int(d[xx] + 0.5f));
                        weight[bin] += w;
                        weighted[bin] += w * d[xx];
                        total += w;
                    }
                }
                float running = 0;
                for (int bin = 0; bin <= maxDisparity; bin++) {
                    running += weight[bin];
                    if (running >= total * 0.5f) {
                        out.at<float>(y, x) = weight[bin] > 0 ? weighted[bin] / weight[bin] : float(bin);
                        break;
                    }
                }
            }
        }
    });
    return out;
}

} // namespace

extern "C" int mbx_cv_stereo_disparity(const mbx_cv_image *left, const mbx_cv_image *right,
                                       const mbx_cv_stereo_options *options, float *out,
                                       mbx_cv_stereo_result *result, mbx_cv_error *error) {
    return mbx::guarded(error, [&] {
        if (!left || !right || !options || !out) throw mbx::Failure{"missing argument"};
        cv::Mat leftColour = mbx::toBGR8(*left, "left view"), rightColour = mbx::toBGR8(*right, "right view");
        if (leftColour.size() != rightColour.size())
            throw mbx::Failure{"the views differ in size: left " + std::to_string(left->width) + "x" +
                               std::to_string(left->height) + ", right " + std::to_string(right->width) + "x" +
                               std::to_string(right->height)};
        mbx_cv_stereo_result info{};
        if (options->calibration_path) {
            mbx::Rectification rectification = mbx::Rectification::load(options->calibration_path);
            rectification.apply(leftColour, rightColour);
            info.focal_px = rectification.focalPx;
            info.baseline = rectification.baseline;
        }
        if (options->out_width > 0 && options->out_height > 0 &&
            (options->out_width != leftColour.cols || options->out_height != leftColour.rows)) {
            const cv::Size size(options->out_width, options->out_height);
            info.focal_px *= double(size.width) / leftColour.cols;
            cv::resize(leftColour, leftColour, size, 0, 0, cv::INTER_AREA);
            cv::resize(rightColour, rightColour, size, 0, 0, cv::INTER_AREA);
        }
        int range = options->num_disparities;
        if (range <= 0) range = (leftColour.cols / 6 + 15) / 16 * 16;
        range = std::max(16, (range + 15) / 16 * 16);
        info.num_disparities = range;

        cv::Mat fixedPoint, disparity;
        if (options->refine < 0) {
            // The reference: colour SGBM with a 5x5 block, P1 = 8·3·25, P2 = 32·3·25.
            auto matcher = cv::StereoSGBM::create(0, range, 5, 24 * 25, 96 * 25, 1, 63, 10, 100, 32,
                                                  cv::StereoSGBM::MODE_SGBM_3WAY);
            matcher->compute(leftColour, rightColour, fixedPoint);
        } else {
            // Grey views match better here than colour: the usual penalties for a
            // 3x3 block, P1 = 8·9, P2 = 32·9, are not diluted across channels.
            cv::Mat leftGrey, rightGrey;
            cv::cvtColor(leftColour, leftGrey, cv::COLOR_BGR2GRAY);
            cv::cvtColor(rightColour, rightGrey, cv::COLOR_BGR2GRAY);
            // SGBM leaves the first `range` columns unmatched, since a pixel there
            // cannot have every disparity; with both views widened by `range`
            // replicated columns those pixels are matched over the disparities
            // the right view can hold, instead of being guessed by filling.
            cv::copyMakeBorder(leftGrey, leftGrey, 0, 0, range, 0, cv::BORDER_REPLICATE);
            cv::copyMakeBorder(rightGrey, rightGrey, 0, 0, range, 0, cv::BORDER_REPLICATE);
            const int block = 3;
            auto matcher = cv::StereoSGBM::create(0, range, block, 8 * block * block, 32 * block * block, 1, 63, 10,
                                                  100, 32, cv::StereoSGBM::MODE_SGBM_3WAY);
            cv::Mat widened;
            matcher->compute(leftGrey, rightGrey, widened);
            fixedPoint = widened(cv::Rect(range, 0, leftColour.cols, leftColour.rows)).clone();
        }
        fixedPoint.convertTo(disparity, CV_32F, 1.0 / 16.0);
        cv::Mat valid = fixedPoint >= 0;
        disparity.setTo(-1, ~valid);
        info.valid_fraction = double(cv::countNonZero(valid)) / double(valid.total());
        fillFromBackground(disparity);
        if (options->refine > 0) {
            // Refine holes and the neighbourhood of depth edges; flat areas are already right.
            cv::Mat high, low;
            cv::dilate(disparity, high, cv::Mat(), cv::Point(-1, -1), 2);
            cv::erode(disparity, low, cv::Mat(), cv::Point(-1, -1), 2);
            cv::Mat todo = ((high - low) > 1.0f) | ~valid;
            disparity = weightedMedian(disparity, valid, leftColour, todo, range, 4, 12.f);
        }
        cv::Mat target(leftColour.rows, leftColour.cols, CV_32F, out);
        disparity.copyTo(target);
        if (result) *result = info;
    });
}
