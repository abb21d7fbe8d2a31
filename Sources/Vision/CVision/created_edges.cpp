// Created edges: the edges a render has that the photo does not (ghost
// outlines, stair-steps, fill halos). A depth-of-field blur only weakens
// edges; only a bokeh disc in a highlight may add one. Measured as the
// portrait-effect issue defines it: both images grey at 1008 px wide (area
// resize), Gaussian sigma 0.8, Sobel 3x3 magnitude / 8; a pixel is created
// where the render's gradient exceeds the photo's by more than 6 levels/px
// and is more than 1.6 times it, outside highlights (either image above
// 235, grown 9 px), after a 2x2 opening. The share of the frame (per mille)
// and the longest connected line (its bounding box's longer side) are given.
#include "bridge.hpp"
#include <opencv2/imgproc.hpp>

namespace {

constexpr int measureWidth = 1008;

cv::Mat greyAtMeasureWidth(const mbx_cv_image &image, const char *what) {
    cv::Mat bgr = mbx::toBGR8(image, what), small, grey;
    const int height = std::max(1, int(std::lround(double(bgr.rows) * measureWidth / bgr.cols)));
    cv::resize(bgr, small, cv::Size(measureWidth, height), 0, 0, cv::INTER_AREA);
    cv::cvtColor(small, grey, cv::COLOR_BGR2GRAY);
    grey.convertTo(grey, CV_32F);
    return grey;
}

cv::Mat gradient(const cv::Mat &grey) {
    cv::Mat smooth, dx, dy, magnitude;
    cv::GaussianBlur(grey, smooth, cv::Size(0, 0), 0.8);
    cv::Sobel(smooth, dx, CV_32F, 1, 0, 3);
    cv::Sobel(smooth, dy, CV_32F, 0, 1, 3);
    cv::magnitude(dx, dy, magnitude);
    return magnitude / 8.0;
}

} // namespace

extern "C" int mbx_cv_created_edges(const mbx_cv_image *original, const mbx_cv_image *render, mbx_cv_created_edges_result *result,
                                    mbx_cv_plane *map, mbx_cv_error *error) {
    return mbx::guarded(error, [&] {
        if (!original || !render || !result) throw mbx::Failure{"created edges: missing argument"};
        const cv::Mat photo = greyAtMeasureWidth(*original, "photo"), rendered = greyAtMeasureWidth(*render, "render");
        if (photo.size() != rendered.size()) throw mbx::Failure{"created edges: the photo and the render are not framed alike (aspect ratios differ)"};
        const cv::Mat before = gradient(photo), after = gradient(rendered);
        cv::Mat highlights;
        cv::dilate((photo > 235) | (rendered > 235), highlights, cv::Mat::ones(9, 9, CV_8U));
        cv::Mat created = (after - before > 6.0) & (after > 1.6 * before + 1e-3) & ~highlights;
        cv::morphologyEx(created, created, cv::MORPH_OPEN, cv::Mat::ones(2, 2, CV_8U));
        cv::Mat labels, stats, centres;
        const int count = cv::connectedComponentsWithStats(created, labels, stats, centres, 8, CV_32S);
        int longest = 0;
        for (int i = 1; i < count; ++i)
            longest = std::max({longest, stats.at<int>(i, cv::CC_STAT_WIDTH), stats.at<int>(i, cv::CC_STAT_HEIGHT)});
        result->per_mille = 1000.0 * cv::countNonZero(created) / double(created.total());
        result->longest = longest;
        result->width = created.cols;
        result->height = created.rows;
        if (map && map->data) {
            if (map->width != created.cols || map->height != created.rows) throw mbx::Failure{"created edges: the map must be the measure's size"};
            cv::Mat target(map->height, map->width, CV_8U, map->data, map->stride);
            created.copyTo(target);
        }
    });
}
