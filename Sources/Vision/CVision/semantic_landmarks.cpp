// Skin and teeth drawn from the face mesh: the face's parts are outlined by
// the landmarks instead of guessed from a box, so the skin matte has no holes
// on textured skin and never covers the eyes, brows or lips, the face's own
// colour is learnt where the cheeks and forehead really are, and the same
// colour finds the neck, ears, arms, hands and legs of the person.
#include "semantic.hpp"
#include "discs.hpp"
#include "matte_steps.hpp"
#include "pose.hpp"
#include <opencv2/imgproc.hpp>

namespace mbx {

namespace {

/// Holes of a mask smaller than maxArea filled.
cv::Mat withoutSmallHoles(const cv::Mat &mask, double maxArea) {
    cv::Mat holes = ~mask, labels, stats, centroids;
    const int count = cv::connectedComponentsWithStats(holes, labels, stats, centroids, 4, CV_32S);
    cv::Mat out = mask.clone();
    for (int label = 1; label < count; label++) {
        const int x = stats.at<int>(label, cv::CC_STAT_LEFT), y = stats.at<int>(label, cv::CC_STAT_TOP);
        const bool border = x == 0 || y == 0 || x + stats.at<int>(label, cv::CC_STAT_WIDTH) == mask.cols ||
                            y + stats.at<int>(label, cv::CC_STAT_HEIGHT) == mask.rows;
        if (!border && stats.at<int>(label, cv::CC_STAT_AREA) < maxArea) out.setTo(255, labels == label);
    }
    return out;
}

/// Eyes, brows and lips: the parts of the oval that are not skin.
cv::Mat notSkinParts(const FaceLandmarks &marks, cv::Size size) {
    cv::Mat parts = marks.fill(mesh::rightEye, size) | marks.fill(mesh::leftEye, size);
    // The eye outlines run along the lid margins; lashes reach a little beyond.
    cv::dilate(parts, parts, disc(int(std::lround(marks.width() / 80))));
    parts |= marks.fill(mesh::rightBrow, size) | marks.fill(mesh::leftBrow, size) | marks.fill(mesh::lipsOuter, size);
    return parts;
}

/// The neck under the jaw: in the face's shadow, often stubbled, so its
/// colour is judged against the lower face's own (GrabCut seeded with the jaw
/// and chin inside the oval) and against the clothes and background around
/// it, within the person and above the collar.
cv::Mat neckSkin(const cv::Mat &colour, const cv::Mat &lab, const std::vector<cv::Vec3f> &samples, const cv::Mat &person,
                 const FaceLandmarks &marks, const cv::Mat &oval, const cv::Mat &parts) {
    const cv::Size size = colour.size();
    cv::Mat out = cv::Mat::zeros(size, CV_8U);
    const double width = marks.width(), height = marks.height();
    const cv::Point2f chin = marks.points[152];
    const int jaw = int(std::lround(std::min(marks.points[172].y, marks.points[397].y)));
    // Where the neck can be: two thirds of the face's width about the chin (hair
    // falls beside it), from the jaw's corners down to most of a face height
    // under the chin; and a margin around it for the clothes and background.
    const cv::Rect neck = cv::Rect(cv::Point(int(chin.x - width / 3), jaw), cv::Point(int(chin.x + width / 3), int(chin.y + 0.7 * height))) &
                          cv::Rect(0, 0, size.width, size.height);
    const cv::Rect region = cv::Rect(cv::Point(int(chin.x - 0.9 * width), int(chin.y - 0.35 * height)),
                                     cv::Point(int(chin.x + 0.9 * width), int(chin.y + 1.0 * height))) &
                            cv::Rect(0, 0, size.width, size.height);
    if (neck.area() <= 0 || region.area() <= 0 || samples.size() < 20) return out;
    cv::Mat mask(size, CV_8U, cv::Scalar(cv::GC_BGD));
    cv::Mat inNeck = cv::Mat::zeros(size, CV_8U);
    inNeck(neck).setTo(255);
    mask.setTo(cv::GC_PR_BGD, person);
    // Skin-coloured in the face's shadow (the model 8x wider along lightness).
    const cv::Mat distance = ColourModel::fit(samples, ColourModel::Fitting{true, 8.0}).distance(lab);
    const cv::Mat shaded = distance < 7.8;
    mask.setTo(cv::GC_PR_FGD, person & inNeck & ~oval);
    mask.setTo(cv::GC_FGD, person & inNeck & shaded & ~oval);
    mask.setTo(cv::GC_FGD, oval & ~parts & inNeck);
    cv::Mat roiMask = mask(region).clone();
    if (cv::countNonZero(roiMask == cv::GC_FGD) < 20 || cv::countNonZero(roiMask == cv::GC_PR_BGD) < 20) return out;
    cv::Mat background, foreground;
    cv::grabCut(colour(region), roiMask, cv::Rect(), background, foreground, 2, cv::GC_INIT_WITH_MASK);
    cv::Mat found = ((roiMask == cv::GC_FGD) | (roiMask == cv::GC_PR_FGD));
    out(region).setTo(255, found);
    // Never far from the skin's colour (a red collar, a printed shirt).
    out &= inNeck & person & ~oval & (distance < 16.3);
    // Only what hangs from the jaw.
    cv::Mat joined = out | (oval & inNeck), labels;
    cv::connectedComponents(joined, labels, 8, CV_32S);
    std::vector<bool> keep(size_t(size.area() + 1), false);
    for (int y = 0; y < size.height; y++)
        for (int x = 0; x < size.width; x++)
            if (oval.at<uchar>(y, x) && inNeck.at<uchar>(y, x)) keep[size_t(labels.at<int>(y, x))] = true;
    for (int y = 0; y < size.height; y++)
        for (int x = 0; x < size.width; x++)
            if (out.at<uchar>(y, x) && !keep[size_t(labels.at<int>(y, x))]) out.at<uchar>(y, x) = 0;
    return out;
}

} // namespace

std::vector<cv::Vec3f> landmarkSkinSamples(const cv::Mat &lab, const FaceLandmarks &marks) {
    std::vector<cv::Vec3f> samples;
    const int radius = std::max(1, int(std::lround(marks.width() / 25)));
    cv::Mat where = cv::Mat::zeros(lab.size(), CV_8U);
    for (const auto *points : {&mesh::cheeks, &mesh::forehead})
        for (int i : *points) cv::circle(where, marks.points[size_t(i)], radius, cv::Scalar(255), cv::FILLED);
    for (int y = 0; y < lab.rows; y++)
        for (int x = 0; x < lab.cols; x++)
            if (where.at<uchar>(y, x)) samples.push_back(lab.at<cv::Vec3f>(y, x));
    return samples;
}

cv::Mat faceOval(const FaceLandmarks &marks, cv::Size size) { return marks.fill(mesh::oval, size); }

cv::Mat headExtent(const FaceLandmarks &marks, cv::Size size) {
    const double width = marks.width(), height = marks.height();
    const cv::Point2f top = marks.points[10], chin = marks.points[152];
    const cv::Point2f centre = top + (top - chin) * 0.05f;
    cv::Mat head = cv::Mat::zeros(size, CV_8U);
    cv::ellipse(head, centre, cv::Size(int(0.8 * width), int(0.75 * height)), 0, 0, 360, cv::Scalar(255), cv::FILLED);
    return head;
}

cv::Rect personExtent(const cv::Mat &person, const FaceLandmarks &marks) {
    const cv::Mat oval = faceOval(marks, person.size());
    cv::Mat labels, stats, centroids;
    const int count = cv::connectedComponentsWithStats(person | oval, labels, stats, centroids, 8, CV_32S);
    const cv::Point2f centre = (marks.points[234] + marks.points[454]) * 0.5f;
    const int label = labels.at<int>(std::clamp(int(centre.y), 0, person.rows - 1), std::clamp(int(centre.x), 0, person.cols - 1));
    if (label <= 0 || label >= count) return cv::Rect();
    return cv::Rect(stats.at<int>(label, cv::CC_STAT_LEFT), stats.at<int>(label, cv::CC_STAT_TOP),
                    stats.at<int>(label, cv::CC_STAT_WIDTH), stats.at<int>(label, cv::CC_STAT_HEIGHT));
}

unsigned keypointsOutside(const BodyPose &pose, const cv::Mat &person) {
    const std::pair<int, unsigned> checked[] = {
        {BodyPose::leftElbow, MBX_CV_POSE_LEFT_ELBOW}, {BodyPose::rightElbow, MBX_CV_POSE_RIGHT_ELBOW},
        {BodyPose::leftWrist, MBX_CV_POSE_LEFT_WRIST}, {BodyPose::rightWrist, MBX_CV_POSE_RIGHT_WRIST},
        {BodyPose::leftKnee, MBX_CV_POSE_LEFT_KNEE},   {BodyPose::rightKnee, MBX_CV_POSE_RIGHT_KNEE},
        {BodyPose::leftAnkle, MBX_CV_POSE_LEFT_ANKLE}, {BodyPose::rightAnkle, MBX_CV_POSE_RIGHT_ANKLE}};
    const int reach = std::max(2, std::max(person.cols, person.rows) / 100);
    unsigned outside = 0;
    for (const auto &[keypoint, bit] : checked) {
        const cv::Point point(pose.points[size_t(keypoint)]);
        const cv::Rect around = cv::Rect(point.x - reach, point.y - reach, 2 * reach + 1, 2 * reach + 1) &
                                cv::Rect(0, 0, person.cols, person.rows);
        if (!pose.visible(keypoint) || around.area() == 0) continue;
        double highest = 0;
        cv::minMaxLoc(person(around), nullptr, &highest);
        if (highest < 128) outside |= bit;
    }
    return outside;
}

bool personMissesFace(const cv::Mat &person, const cv::Mat &oval) {
    const int area = cv::countNonZero(oval);
    return area > 0 && 2 * cv::countNonZero(person & oval) < area;
}

cv::Mat landmarkSkin(const cv::Mat &colour, const cv::Mat &lab, const std::vector<cv::Vec3f> &samples, const cv::Mat &likelihood,
                     const cv::Mat &person, const FaceLandmarks &marks, const BodyPose *pose) {
    const cv::Size size = likelihood.size();
    const double width = marks.width(), height = marks.height();
    const cv::Mat oval = faceOval(marks, size), parts = notSkinParts(marks, size);
    // Beyond the oval: skin-coloured pixels of the person, closed over the
    // pores and stubble the colour model misses.
    cv::Mat around = (likelihood > 127) & person & ~oval & ~parts;
    around |= neckSkin(colour, lab, samples, person, marks, oval, parts);
    if (pose) {
        // With the body's keypoints, skin away from the head lies along the
        // arms and legs (a beige shirt of the skin's colour is not skin).
        cv::Mat near = grownByDisc(oval, std::lround(0.6 * width));
        near(cv::Rect(0, 0, size.width, size.height) &
             cv::Rect(int(marks.points[152].x - width), int(marks.points[152].y), int(2 * width), int(height))).setTo(255);
        around &= near | pose->limbs(size, std::max(3, int(std::lround(0.7 * width))));
    }
    cv::morphologyEx(around, around, cv::MORPH_CLOSE, disc(int(std::lround(width / 40))));
    cv::morphologyEx(around, around, cv::MORPH_OPEN, disc(int(std::lround(width / 80))));
    // Only this person's body: from above the head down, within a few face
    // widths of it (another person's arm at the photo's side is not theirs),
    // and pieces large enough to be a hand or a strip of neck.
    const cv::Point2f centre = (marks.points[234] + marks.points[454]) * 0.5f;
    const int top = int(centre.y - height);
    const cv::Rect body(int(centre.x - 3.5 * width), top, int(7 * width), std::max(0, size.height - top));
    cv::Mat labels, stats, centroids;
    const int count = cv::connectedComponentsWithStats(around, labels, stats, centroids, 8, CV_32S);
    cv::Mat kept = cv::Mat::zeros(size, CV_8U);
    const double minimum = width * width / 300;
    for (int label = 1; label < count; label++) {
        const cv::Rect box(stats.at<int>(label, cv::CC_STAT_LEFT), stats.at<int>(label, cv::CC_STAT_TOP),
                           stats.at<int>(label, cv::CC_STAT_WIDTH), stats.at<int>(label, cv::CC_STAT_HEIGHT));
        if (stats.at<int>(label, cv::CC_STAT_AREA) >= minimum && (box & body).area() > 0) kept.setTo(255, labels == label);
    }
    return withoutSmallHoles((oval & ~parts) | kept, width * width / 30) & ~parts;
}

void settleHairAndSkin(cv::Mat &skin, cv::Mat &hair, const cv::Mat &likelihood, const FaceLandmarks &marks) {
    const cv::Size size = likelihood.size();
    const double width = marks.width();
    const cv::Mat oval = faceOval(marks, size);
    // Hair reaching into the oval (a fringe, sideburns, hair over the
    // temples): what the hair matte holds there that is not of the skin's
    // colour, outside the features (brows to mouth), and joined to the hair outside.
    std::vector<cv::Point> features;
    for (const auto *part : {&mesh::rightBrow, &mesh::leftBrow, &mesh::lipsOuter})
        for (const cv::Point &point : marks.outline(*part)) features.push_back(point);
    std::vector<cv::Point> hull;
    cv::convexHull(features, hull);
    cv::Mat core = cv::Mat::zeros(size, CV_8U);
    cv::fillConvexPoly(core, hull, cv::Scalar(255));
    cv::dilate(core, core, disc(int(std::lround(width / 30))));
    cv::Mat fringe = oval & hair & (likelihood < 128) & ~core;
    cv::Mat labels;
    const int count = cv::connectedComponents(fringe, labels, 8, CV_32S);
    cv::Mat nearHair;
    cv::dilate(hair & ~oval, nearHair, disc(2));
    std::vector<bool> joined(size_t(count), false);
    for (int y = 0; y < size.height; y++)
        for (int x = 0; x < size.width; x++)
            if (nearHair.at<uchar>(y, x) && labels.at<int>(y, x) > 0) joined[size_t(labels.at<int>(y, x))] = true;
    cv::Mat kept = cv::Mat::zeros(size, CV_8U);
    for (int label = 1; label < count; label++)
        if (joined[size_t(label)]) kept.setTo(255, labels == label);
    // Hair never inside the oval but where it reaches in; skin never where hair is.
    hair = (hair & ~oval) | kept;
    skin &= ~hair;
}

cv::Mat landmarkBrows(const cv::Mat &likelihood, const FaceLandmarks &marks) {
    const cv::Size size = likelihood.size();
    cv::Mat brows = marks.fill(mesh::rightBrow, size) | marks.fill(mesh::leftBrow, size);
    cv::dilate(brows, brows, disc(int(std::lround(marks.width() / 40))));
    return brows & (likelihood < 128);
}

cv::Mat landmarkTeeth(const cv::Mat &lab, const cv::Mat &likelihood, const cv::Rect &face, const FaceLandmarks &marks,
                      bool &found) {
    found = false;
    const cv::Size size = lab.size();
    const cv::Mat opening = marks.fill(mesh::lipsInner, size);
    const int open = cv::countNonZero(opening), lips = cv::countNonZero(marks.fill(mesh::lipsOuter, size));
    // Closed lips: the inner outline encloses next to nothing.
    if (open < std::max(4, lips / 25)) return cv::Mat::zeros(size, CV_8U);
    const cv::Point2f left = marks.points[61], right = marks.points[291];
    const double mouthWidth = std::max(2.0, double(cv::norm(right - left)));
    const cv::Point2f middle = (marks.points[13] + marks.points[14]) * 0.5f;
    const cv::Rect mouth(int(std::lround(middle.x - mouthWidth / 2)), int(std::lround(middle.y - mouthWidth / 4)),
                         int(std::lround(mouthWidth)), int(std::lround(mouthWidth / 2)));
    bool bright = false;
    cv::Mat teeth = teethMask(lab, likelihood, face, mouth, bright);
    if (!bright) return cv::Mat::zeros(size, CV_8U);
    cv::Mat between;
    cv::dilate(opening, between, disc(std::max(1, int(std::lround(mouthWidth / 40)))));
    teeth &= between;
    found = cv::countNonZero(teeth) >= std::max(4, open / 10);
    if (!found) teeth.setTo(0);
    return teeth;
}

} // namespace mbx
