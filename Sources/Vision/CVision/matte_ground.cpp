// The surface a matte's subject stands on (matte_ground.hpp).
#include "matte_ground.hpp"
#include "discs.hpp"
#include "guided_filter.hpp"
#include <algorithm>
#include <cmath>
#include <limits>
#include <opencv2/imgproc.hpp>
#include <vector>

namespace mbx {

namespace {

/// Each pixel's background disparity beside it: that of the nearest pixel of `beside` in its row,
/// to the left or right (the nearer of the two), from `depth` smoothed a little; NaN where the
/// row has none.
cv::Mat disparityBeside(const cv::Mat &depth, const cv::Mat &beside) {
    cv::Mat smooth, out(depth.size(), CV_32F, cv::Scalar(std::numeric_limits<float>::quiet_NaN()));
    cv::blur(depth, smooth, cv::Size(5, 5));
    std::vector<int> left(size_t(depth.cols));
    for (int y = 0; y < depth.rows; ++y) {
        const uchar *b = beside.ptr<uchar>(y);
        const float *s = smooth.ptr<float>(y);
        float *o = out.ptr<float>(y);
        int last = -1;
        for (int x = 0; x < depth.cols; ++x) {
            if (b[x]) last = x;
            left[size_t(x)] = last;
        }
        int next = -1;
        for (int x = depth.cols - 1; x >= 0; --x) {
            if (b[x]) next = x;
            const int l = left[size_t(x)];
            if (l < 0 && next < 0) continue;
            const int nearest = l < 0 ? next : next < 0 ? l : (x - l <= next - x ? l : next);
            o[x] = s[nearest];
        }
    }
    return out;
}

/// The pixels of `mask` joined (4-connected) to its last row.
cv::Mat joinedToFoot(const cv::Mat &mask) {
    cv::Mat labels;
    const int count = cv::connectedComponents(mask, labels, 4, CV_32S);
    std::vector<uchar> atFoot(size_t(count), 0);
    const int *last = labels.ptr<int>(labels.rows - 1);
    for (int x = 0; x < labels.cols; ++x)
        if (last[x] > 0) atFoot[size_t(last[x])] = 1;
    cv::Mat joined(mask.size(), CV_8U);
    for (int y = 0; y < mask.rows; ++y) {
        const int *l = labels.ptr<int>(y);
        uchar *j = joined.ptr<uchar>(y);
        for (int x = 0; x < mask.cols; ++x) j[x] = atFoot[size_t(l[x])] ? 255 : 0;
    }
    return joined;
}

/// The matte's soft fringe (over 0, under a half) that belongs to `surface`: the pixels whose
/// nearest pixel of the subject's inside is one of the surface's. Left behind, it stays as pale
/// trails where the surface's outline was.
cv::Mat fringeOf(const cv::Mat &subject, const cv::Mat &inside, const cv::Mat &surface) {
    cv::Mat distance, labels;
    cv::distanceTransform(~inside, distance, labels, cv::DIST_L2, cv::DIST_MASK_5, cv::DIST_LABEL_PIXEL);
    double highest = 0;
    cv::minMaxLoc(labels, nullptr, &highest);
    std::vector<uchar> ofSurface(size_t(highest) + 1, 0);
    for (int y = 0; y < inside.rows; ++y) {
        const uchar *i = inside.ptr<uchar>(y), *s = surface.ptr<uchar>(y);
        const int *l = labels.ptr<int>(y);
        for (int x = 0; x < inside.cols; ++x)
            if (i[x] && s[x]) ofSurface[size_t(l[x])] = 1;
    }
    cv::Mat fringe(subject.size(), CV_8U, cv::Scalar(0));
    for (int y = 0; y < subject.rows; ++y) {
        const float *v = subject.ptr<float>(y);
        const int *l = labels.ptr<int>(y);
        uchar *f = fringe.ptr<uchar>(y);
        for (int x = 0; x < subject.cols; ++x) f[x] = v[x] > 0 && v[x] < 0.5f && ofSurface[size_t(l[x])] ? 255 : 0;
    }
    return fringe;
}

} // namespace

cv::Mat subjectWithoutGround(const cv::Mat &guide, const cv::Mat &depth, const cv::Mat &subject, float subjectPlane, int band) {
    const cv::Mat inside = subject > 0.5f;
    if (cv::countNonZero(inside.row(inside.rows - 1)) == 0) return cv::Mat(); // the subject ends above the frame's foot
    cv::Mat outside;
    cv::erode(subject < 0.05f, outside, disc(band));
    // Where depth cannot tell the subject from what lies beside it: nearer the background's
    // disparity there than the subject's own.
    const cv::Mat beside = disparityBeside(depth, outside);
    cv::Mat undecided(subject.size(), CV_8U, cv::Scalar(0));
    for (int y = 0; y < subject.rows; ++y) {
        const float *s = subject.ptr<float>(y), *d = depth.ptr<float>(y), *b = beside.ptr<float>(y);
        uchar *u = undecided.ptr<uchar>(y);
        for (int x = 0; x < subject.cols; ++x) {
            // (A subject no nearer than its background beside it says nothing: NaN compares false.)
            const float apart = subjectPlane - b[x];
            u[x] = s[x] > 0.5f && apart > 0.02f && d[x] - b[x] < 0.5f * apart ? 255 : 0;
        }
    }
    const cv::Mat region = joinedToFoot(undecided);
    const int area = cv::countNonZero(region);
    if (area < std::max(64, cv::countNonZero(inside) / 200)) return cv::Mat();

    // GrabCut over the region, the background beside it and as much of the subject above it.
    const cv::Rect box = cv::boundingRect(region);
    const int margin = 4 * band;
    const int left = std::max(0, box.x - margin), right = std::min(subject.cols, box.x + box.width + margin);
    const int top = std::max(0, box.y - std::max(box.height, margin));
    const cv::Rect roi(left, top, right - left, subject.rows - top);
    cv::Mat seeds(roi.size(), CV_8U, cv::Scalar(cv::GC_PR_BGD));
    cv::Mat sureSubject;
    cv::erode(inside, sureSubject, disc(band));
    int subjectSeeds = 0, backgroundSeeds = 0;
    for (int y = 0; y < roi.height; ++y) {
        const uchar *r = region.ptr<uchar>(roi.y + y) + roi.x, *o = outside.ptr<uchar>(roi.y + y) + roi.x;
        const uchar *s = sureSubject.ptr<uchar>(roi.y + y) + roi.x;
        uchar *m = seeds.ptr<uchar>(y);
        for (int x = 0; x < roi.width; ++x) {
            if (r[x]) {
                m[x] = cv::GC_PR_FGD;
            } else if (o[x]) {
                m[x] = cv::GC_BGD;
                ++backgroundSeeds;
            } else if (s[x]) {
                m[x] = cv::GC_FGD;
                ++subjectSeeds;
            }
        }
    }
    if (subjectSeeds < 64 || backgroundSeeds < 64) return cv::Mat();
    // On at most about 60,000 pixels (GrabCut's graph cut grows faster than the area: 1.4 s for a
    // figure's 500x700 pixels), its labels then brought back to the working size.
    cv::Mat colour, backgroundModel, subjectModel;
    guide(roi).convertTo(colour, CV_8UC3, 255);
    const double reduce = std::min(1.0, std::sqrt(60000.0 / double(roi.area())));
    cv::Mat labels = seeds;
    if (reduce < 1) {
        const cv::Size small(std::max(1, int(roi.width * reduce)), std::max(1, int(roi.height * reduce)));
        cv::resize(colour, colour, small, 0, 0, cv::INTER_AREA);
        cv::resize(seeds, labels, small, 0, 0, cv::INTER_NEAREST);
    }
    cv::grabCut(colour, labels, cv::Rect(), backgroundModel, subjectModel, 3, cv::GC_INIT_WITH_MASK);
    if (reduce < 1) cv::resize(labels, seeds, roi.size(), 0, 0, cv::INTER_NEAREST);

    // The surface: what GrabCut gave the background within the region, joined to the foot.
    cv::Mat surface(subject.size(), CV_8U, cv::Scalar(0));
    {
        cv::Mat surfaceHere = (seeds == cv::GC_BGD) | (seeds == cv::GC_PR_BGD);
        surfaceHere &= region(roi);
        surfaceHere.copyTo(surface(roi));
    }
    surface = joinedToFoot(surface);
    if (cv::countNonZero(surface) < std::max(64, cv::countNonZero(inside) / 200)) return cv::Mat();
    // With the matte's soft edge around it, which would stay as a pale trail.
    surface |= fringeOf(subject, inside, surface);

    // Kept: all but the surface, its border following the photo's edges (a guided filter), and
    // untouched away from it.
    cv::Mat keep, guide8;
    surface.convertTo(keep, CV_32F, -1.0 / 255, 1.0);
    guide.convertTo(guide8, CV_8UC3, 255);
    keep = guidedFilter(guide8, keep, 4, 50);
    cv::Mat near;
    cv::dilate(surface, near, disc(6));
    keep.setTo(1.0f, near == 0);
    return cv::min(cv::max(keep, 0.0f), 1.0f);
}

} // namespace mbx
