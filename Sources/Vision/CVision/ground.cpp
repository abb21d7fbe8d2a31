// A ground-plane prior for matte-only portraits. With a matte and no depth,
// the background is one far plane; but the ground a person stands on is at
// their distance where they touch it and recedes behind them, so blurring it
// like the far crowd detaches the feet from the floor. On a flat ground seen
// by an upright camera, disparity is linear in the image row: zero at the
// horizon, the subject's own at the contact row. The ground is found as the
// region of the contact's colours (a Gaussian colour model of the pixels
// around the feet) joined to the contact; the horizon is put two subject
// heights above the feet (an eye-level camera puts it about one height
// above; a camera looking down puts it higher, and a farther horizon blurs
// the ground less, the safer error). Only the ground near the feet is placed:
// it fades to far between a quarter and half a subject height above them.
#include "ground.hpp"
#include "discs.hpp"
#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>

namespace mbx {

GroundEstimate estimateGround(const cv::Mat &photo, const cv::Mat &subject) {
    GroundEstimate estimate;
    estimate.disparity = cv::Mat::zeros(photo.size(), CV_32F);
    if (subject.empty()) return estimate;
    const int rows = photo.rows, cols = photo.cols;
    cv::Mat person = subject > 0.5f;
    // The subject's extent, ignoring specks: rows holding at least 0.2 % of the frame's width.
    int top = -1, bottom = -1;
    for (int y = 0; y < rows; ++y) {
        if (cv::countNonZero(person.row(y)) > std::max(1, cols / 500)) {
            if (top < 0) top = y;
            bottom = y;
        }
    }
    if (bottom < 0) return estimate;
    if (bottom >= rows - std::max(2, rows / 50)) {
        estimate.note = "the subject reaches the bottom of the frame, so no ground shows under it: all but the subject is far";
        return estimate;
    }
    // The feet: the subject's columns in its lowest 3 % of the frame.
    const int footTop = std::max(top, bottom - std::max(2, rows * 3 / 100));
    cv::Mat feet = person.rowRange(footTop, bottom + 1);
    std::vector<cv::Point> points;
    cv::findNonZero(feet, points);
    const cv::Rect footBox = cv::boundingRect(points) + cv::Point(0, footTop);
    // Seeds: what is not the subject around and under the feet.
    const int margin = std::max(3, footBox.width / 4 + rows / 100);
    const cv::Rect around = cv::Rect(footBox.x - margin, footBox.y, footBox.width + 2 * margin, footBox.height + margin * 2) &
                            cv::Rect(0, 0, cols, rows);
    cv::Mat nearPerson;
    cv::dilate(person, nearPerson, disc(2));
    cv::Mat seedMask = cv::Mat::zeros(photo.size(), CV_8U);
    seedMask(around).setTo(255);
    seedMask.setTo(0, nearPerson);
    const int seeds = cv::countNonZero(seedMask);
    if (seeds < 30) {
        estimate.note = "too little ground shows around the subject's feet to place it: all but the subject is far";
        return estimate;
    }
    // The contact's colours as a Gaussian; the ground is what is within 3.5 sigma of it and joined to the contact.
    cv::Mat samples(seeds, 3, CV_32F);
    int next = 0;
    for (int y = around.y; y < around.y + around.height; ++y)
        for (int x = around.x; x < around.x + around.width; ++x)
            if (seedMask.at<uchar>(y, x)) {
                const cv::Vec3f p = photo.at<cv::Vec3f>(y, x);
                for (int c = 0; c < 3; ++c) samples.at<float>(next, c) = p[c];
                ++next;
            }
    cv::Mat covariance, mean;
    cv::calcCovarMatrix(samples, covariance, mean, cv::COVAR_NORMAL | cv::COVAR_ROWS | cv::COVAR_SCALE, CV_32F);
    covariance += cv::Mat::eye(3, 3, CV_32F) * 0.0004f; // colours within 0.02 never count as different
    const cv::Matx33f inverse(cv::Mat(covariance.inv(cv::DECOMP_CHOLESKY)));
    const cv::Vec3f centre(mean.at<float>(0), mean.at<float>(1), mean.at<float>(2));
    cv::Mat likeness(photo.size(), CV_32F);
    cv::parallel_for_(cv::Range(0, rows), [&](const cv::Range &range) {
        for (int y = range.start; y < range.end; ++y) {
            const cv::Vec3f *p = photo.ptr<cv::Vec3f>(y);
            float *l = likeness.ptr<float>(y);
            for (int x = 0; x < cols; ++x) {
                const cv::Vec3f d = p[x] - centre;
                const float distance = d.dot(inverse * d);
                l[x] = std::clamp((16.0f - distance) / 8.0f, 0.0f, 1.0f); // 1 within 2.8 sigma, 0 beyond 4
            }
        }
    });
    cv::Mat groundLike = (likeness > 0.5f) & ~nearPerson;
    cv::Mat labels;
    cv::connectedComponents(groundLike, labels, 8, CV_32S);
    std::vector<uchar> touches;
    for (int y = around.y; y < around.y + around.height; ++y)
        for (int x = around.x; x < around.x + around.width; ++x) {
            const int label = labels.at<int>(y, x);
            if (label > 0) {
                if (size_t(label) >= touches.size()) touches.resize(size_t(label) + 1, 0);
                touches[size_t(label)] = 1;
            }
        }
    cv::Mat onGround = cv::Mat::zeros(photo.size(), CV_8U);
    for (int y = 0; y < rows; ++y) {
        const int *label = labels.ptr<int>(y);
        uchar *g = onGround.ptr<uchar>(y);
        for (int x = 0; x < cols; ++x) g[x] = label[x] > 0 && size_t(label[x]) < touches.size() && touches[size_t(label[x])] ? 255 : 0;
    }
    // What lies on the ground (a ball, a bag, a painted line: a region of other colours that
    // begins below the ground's farthest row, and is not the subject) stands on it too.
    int groundTop = rows;
    for (int y = 0; y < rows && groundTop == rows; ++y)
        if (cv::countNonZero(onGround.row(y)) > 0) groundTop = y;
    cv::Mat rest = ~onGround & ~nearPerson, restLabels, stats, centres;
    const int pieces = cv::connectedComponentsWithStats(rest, restLabels, stats, centres, 8, CV_32S);
    std::vector<uchar> enclosed(size_t(pieces), 0);
    for (int i = 1; i < pieces; ++i) enclosed[size_t(i)] = stats.at<int>(i, cv::CC_STAT_TOP) > groundTop;
    // The plane: 1 at the contact row, 0 at the horizon two subject heights above it; and only
    // near the feet, fading out between a quarter and half a subject height above them (a floor
    // and a wall of one colour cannot be told apart, and a wall behind must stay far).
    const float height = float(std::max(1, bottom - top));
    const float horizon = float(bottom) - 2 * height;
    const float fadeStart = float(bottom) - 0.25f * height, fadeEnd = float(bottom) - 0.5f * height;
    cv::Mat ground = cv::Mat::zeros(photo.size(), CV_32F);
    for (int y = 0; y < rows; ++y) {
        const int *piece = restLabels.ptr<int>(y);
        const uchar *g = onGround.ptr<uchar>(y);
        float *d = ground.ptr<float>(y);
        const float fade = std::clamp((float(y) - fadeEnd) / (fadeStart - fadeEnd), 0.0f, 1.0f);
        const float plane = fade * std::max(0.0f, (float(y) - horizon) / (float(bottom) - horizon));
        for (int x = 0; x < cols; ++x)
            if (g[x] || enclosed[size_t(piece[x])]) d[x] = plane;
    }
    cv::GaussianBlur(ground, ground, cv::Size(), 1.0);
    estimate.disparity = ground;
    estimate.note = "the ground under the subject's feet lies on a plane through them (a ground-plane estimate from the matte)";
    return estimate;
}

} // namespace mbx
