// The person around a face: GrabCut seeded by a head-and-shoulders layout
// measured in face sizes, then softened along the photo's edges. This is the
// portrait effects matte (iOS: the person, soft at hair).
#include "bridge.hpp"
#include "discs.hpp"
#include "guided_filter.hpp"
#include "matte_steps.hpp"
#include <opencv2/imgproc.hpp>

namespace mbx {

namespace {

void fillEllipse(cv::Mat &mask, cv::Point2d centre, cv::Size2d axes, int value) {
    cv::ellipse(mask, cv::Point(int(centre.x), int(centre.y)), cv::Size(int(axes.width), int(axes.height)), 0, 0, 360,
                cv::Scalar(value), cv::FILLED);
}

/// Keeps the connected part of a 0/255 mask that holds `seed`, with its holes filled.
cv::Mat keepComponentAt(const cv::Mat &mask, cv::Point seed) {
    cv::Mat labels;
    cv::connectedComponents(mask, labels, 8, CV_32S);
    seed.x = std::clamp(seed.x, 0, mask.cols - 1);
    seed.y = std::clamp(seed.y, 0, mask.rows - 1);
    int label = labels.at<int>(seed);
    if (label == 0) return mask.clone();
    cv::Mat kept = labels == label;
    // Fill holes: everything not reachable from the border outside the mask.
    cv::Mat outside = ~kept, flood = outside.clone();
    cv::Mat floodMask = cv::Mat::zeros(mask.rows + 2, mask.cols + 2, CV_8U);
    for (int x = 0; x < mask.cols; x++) {
        for (int y : {0, mask.rows - 1})
            if (flood.at<uchar>(y, x) == 255) cv::floodFill(flood, floodMask, cv::Point(x, y), 128);
    }
    for (int y = 0; y < mask.rows; y++) {
        for (int x : {0, mask.cols - 1})
            if (flood.at<uchar>(y, x) == 255) cv::floodFill(flood, floodMask, cv::Point(x, y), 128);
    }
    kept.setTo(255, flood == 255); // enclosed holes
    return kept;
}

} // namespace

cv::Mat personMask(const cv::Mat &colour, const cv::Rect &face, const BorderBackground &wall, int effort) {
    const double fx = face.x, fy = face.y, fw = face.width, fh = face.height;
    const cv::Point2d centre(fx + fw / 2, fy + fh / 2);
    cv::Mat mask(colour.size(), CV_8U, cv::Scalar(cv::GC_BGD));
    // Probable background near the person, definite further out.
    cv::rectangle(mask, cv::Rect(int(fx - 1.6 * fw), int(fy - 1.0 * fh), int(4.2 * fw), colour.rows), cv::GC_PR_BGD,
                  cv::FILLED);
    // Probable person: the head with room for hair, the neck, the shoulders and body.
    fillEllipse(mask, {centre.x, fy + 0.45 * fh}, {0.95 * fw, 1.05 * fh}, cv::GC_PR_FGD);
    cv::Mat headArea = cv::Mat::zeros(colour.size(), CV_8U);
    fillEllipse(headArea, {centre.x, fy + 0.45 * fh}, {0.95 * fw, 1.05 * fh}, 255);
    cv::rectangle(mask, cv::Rect(int(fx + 0.1 * fw), int(fy + 0.9 * fh), int(0.8 * fw), int(0.7 * fh)), cv::GC_PR_FGD,
                  cv::FILLED);
    for (int y = int(fy + 1.4 * fh); y < colour.rows; y++) {
        double spread = std::min(1.0, (y - (fy + 1.4 * fh)) / (0.6 * fh)); // shoulders widen below the neck
        int half = int(fw * (0.5 + 0.9 * spread));
        cv::line(mask, cv::Point(int(centre.x) - half, y), cv::Point(int(centre.x) + half, y), cv::GC_PR_FGD);
    }
    // The frame's top and sides start as probable background, so the
    // background model has samples even when the head fills the photo.
    const int border = std::max(2, std::min(colour.cols, colour.rows) / 40);
    for (cv::Rect strip : {cv::Rect(0, 0, colour.cols, border), cv::Rect(0, 0, border, colour.rows),
                           cv::Rect(colour.cols - border, 0, border, colour.rows)}) {
        cv::Mat area = mask(strip), head = headArea(strip);
        area.setTo(cv::GC_PR_BGD, (area == cv::GC_PR_FGD) & ~head);
    }
    // The top corners of a portrait are background even when hair reaches the
    // top edge; they anchor the background model.
    const int corner = std::max(4, std::min(colour.cols, colour.rows) / 12);
    mask(cv::Rect(0, 0, corner, corner)).setTo(cv::GC_BGD);
    mask(cv::Rect(colour.cols - corner, 0, corner, corner)).setTo(cv::GC_BGD);
    // Background the photo's edges show, and its colour reaching in from there.
    mask.setTo(cv::GC_PR_BGD, wall.likely);
    mask.setTo(cv::GC_BGD, wall.seeds);
    // Definitely the person: the middle of the face.
    fillEllipse(mask, {centre.x, fy + 0.55 * fh}, {0.3 * fw, 0.4 * fh}, cv::GC_FGD);

    cv::Mat background, foreground;
    const int iterations = effort <= 0 ? 2 : effort == 1 ? 3 : 5;
    cv::grabCut(colour, mask, cv::Rect(), background, foreground, iterations, cv::GC_INIT_WITH_MASK);
    cv::Mat person = (mask == cv::GC_FGD) | (mask == cv::GC_PR_FGD);
    cv::morphologyEx(person, person, cv::MORPH_OPEN, disc(2));
    return keepComponentAt(person, cv::Point(int(centre.x), int(fy + 0.55 * fh)));
}

cv::Mat softEdges(const cv::Mat &colour, const cv::Mat &mask, int radius) {
    cv::Mat soft;
    guidedFilter(colour, mask, std::max(1, radius), 0.02 * 255 * 255).convertTo(soft, CV_8U); // saturated to 0...255
    return soft;
}

} // namespace mbx

extern "C" int mbx_cv_portrait_matte(const mbx_cv_image *image, const mbx_cv_matte_options *options,
                                     mbx_cv_rect face, mbx_cv_plane *matte, mbx_cv_error *error) {
    return mbx::guarded(error, [&] {
        if (!image || !options || !matte) throw mbx::Failure{"missing argument"};
        mbx::WorkingFrame frame = mbx::WorkingFrame::make(*image, *options);
        cv::Rect working = frame.toWorking(face);
        cv::Mat person = mbx::personMask(frame.colour, working, mbx::borderBackground(mbx::toLab(frame.colour), working),
                                         options->effort);
        int radius = std::max(2, std::max(frame.colour.cols, frame.colour.rows) / 150);
        mbx::writePlane(mbx::softEdges(frame.colour, person, radius), frame.orientation, *matte);
    });
}
