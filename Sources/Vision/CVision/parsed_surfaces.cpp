// What a face parser's hair and skin need beyond its classes. CelebAMask-HQ
// labels a beard as skin, Apple's skin matte leaves it out: the parts of the
// lower face nearer the eyebrows' colours than the upper face's bare skin, in
// pieces that cross the face's midline as facial hair does, are taken out. And the parser
// sees a square about the face; hair that falls past the square's edge and
// the body's skin (arms, hands) lie outside it. Both are carried on over the
// person the portrait matte holds, by the colours the parser found inside the
// square: hair as one piece with the hair it saw, so the matte runs on across
// the square's edge with no seam; skin wherever the person shows the face's
// own skin colour, as iOS's skin matte covers hands.
#include "discs.hpp"
#include "matte_steps.hpp"
#include <cmath>
#include <opencv2/imgproc.hpp>

namespace mbx {

namespace {

/// Pixels of the surface's core (away from its soft edge), every few, as Lab samples.
std::vector<cv::Vec3f> coreSamples(const cv::Mat &surface, const cv::Mat &lab) {
    cv::Mat core;
    cv::erode(surface, core, disc(2));
    const int count = cv::countNonZero(core);
    const int step = std::max(1, count / 20000);
    std::vector<cv::Vec3f> samples;
    int seen = 0;
    for (int y = 0; y < core.rows; y++)
        for (int x = 0; x < core.cols; x++)
            if (core.at<uchar>(y, x) && seen++ % step == 0) samples.push_back(lab.at<cv::Vec3f>(y, x));
    return samples;
}

/// The parts of `candidate` in the same 8-connected piece as some pixel of `seed`.
cv::Mat joinedTo(const cv::Mat &candidate, const cv::Mat &seed) {
    cv::Mat labels;
    const int count = cv::connectedComponents(candidate | seed, labels, 8, CV_32S);
    std::vector<uchar> held(count, 0);
    for (int y = 0; y < seed.rows; y++)
        for (int x = 0; x < seed.cols; x++)
            if (seed.at<uchar>(y, x)) held[labels.at<int>(y, x)] = 1;
    cv::Mat out = cv::Mat::zeros(candidate.size(), CV_8U);
    for (int y = 0; y < out.rows; y++)
        for (int x = 0; x < out.cols; x++)
            if (candidate.at<uchar>(y, x) && held[labels.at<int>(y, x)]) out.at<uchar>(y, x) = 255;
    return out;
}

/// The face's midline below the eyes: through the point between the two eyebrows, across the line
/// joining them (so it leans with a rolled face); upright through the face box's centre when one brow
/// is not seen. `across` gives a pixel's signed distance from it.
struct Midline {
    cv::Point2f through;
    cv::Point2f along; // unit, left brow to right brow
    float across(int x, int y) const { return (x - through.x) * along.x + (y - through.y) * along.y; }

    static Midline of(const cv::Mat &brows, const cv::Rect &face) {
        const float centre = face.x + face.width / 2.0f;
        cv::Point2f sum[2] = {{0, 0}, {0, 0}};
        int count[2] = {0, 0};
        for (int y = 0; y < brows.rows; y++)
            for (int x = 0; x < brows.cols; x++)
                if (brows.at<uchar>(y, x)) {
                    const int side = x < centre ? 0 : 1;
                    sum[side] += cv::Point2f(float(x), float(y));
                    count[side]++;
                }
        if (count[0] < 10 || count[1] < 10) return {{centre, float(face.y)}, {1, 0}};
        const cv::Point2f left = sum[0] / count[0], right = sum[1] / count[1];
        const cv::Point2f join = right - left;
        const float length = std::sqrt(join.dot(join));
        if (length < 1) return {{centre, float(face.y)}, {1, 0}};
        return {(left + right) / 2, join / length};
    }
};

/// The pieces of `mask` of at least `smallest` pixels.
cv::Mat piecesOfAtLeast(const cv::Mat &mask, int smallest) {
    cv::Mat labels, stats, centroids;
    const int count = cv::connectedComponentsWithStats(mask, labels, stats, centroids, 8, CV_32S);
    cv::Mat out = cv::Mat::zeros(mask.size(), CV_8U);
    for (int label = 1; label < count; label++)
        if (stats.at<int>(label, cv::CC_STAT_AREA) >= smallest) out.setTo(255, labels == label);
    return out;
}

} // namespace

void leaveOutBeard(cv::Mat &skin, const cv::Mat &lab, const cv::Rect &face, const cv::Mat &brows, const cv::Mat &ground) {
    const cv::Rect frame(0, 0, skin.cols, skin.rows);
    // The upper face (forehead, cheeks, down to about the nose's tip) is bare on almost every face.
    const int noseLine = face.y + face.height * 11 / 20;
    const cv::Rect upper = cv::Rect(face.x, face.y, face.width, noseLine - face.y) & frame;
    cv::Mat upperSkin = cv::Mat::zeros(skin.size(), CV_8U);
    if (upper.area() > 0) skin(upper).copyTo(upperSkin(upper));
    const std::vector<cv::Vec3f> bareSamples = coreSamples(upperSkin, lab);
    // The eyebrows are the face's own hair: a beard is most often their colour.
    std::vector<cv::Vec3f> browSamples;
    for (int y = 0; y < brows.rows; y++)
        for (int x = 0; x < brows.cols; x++)
            if (brows.at<uchar>(y, x)) browSamples.push_back(lab.at<cv::Vec3f>(y, x));
    if (bareSamples.size() < 50 || browSamples.size() < 30) return;
    // Shading is allowed for, but less than for a whole surface: a beard is darker than the skin it grows on.
    const ColourModel::Fitting fitting{true, 1.5};
    const ColourModel bare = ColourModel::fit(bareSamples, fitting);
    const ColourModel hair = ColourModel::fit(browSamples, fitting);
    cv::Mat around = cv::Mat::zeros(skin.size(), CV_8U);
    const cv::Rect face2 = cv::Rect(face.x - face.width / 4, face.y, face.width * 3 / 2, face.height * 2) & frame;
    if (face2.area() <= 0) return;
    around(face2).setTo(255);
    const cv::Mat toHair = hair.distance(lab), toBare = bare.distance(lab);
    // On the face's skin (a shadow on the neck is not a beard). A beard seen closely is a mix of hairs
    // and the skin between them: what tells it is how much of a neighbourhood is hair, not each pixel
    // (a pixel-by-pixel test left the beard's lighter, mixed parts as skin, Apple's matte does not). A
    // pixel is hair when clearly nearer the brows' colours than the bare skin's (at half the distance
    // or less, so skin in shadow or coloured light stays skin) and within the brows' own (99.9%); a
    // beard is where most of a neighbourhood a thirtieth of the face across is hair.
    const cv::Mat onFace = skin & ground & around;
    const cv::Mat hairLike = (toHair * 2 < toBare) & (toHair < 16.3f) & onFace;
    cv::Mat density;
    const int window = std::max(3, face.width / 30) | 1;
    cv::boxFilter(hairLike, density, CV_32F, cv::Size(window, window), cv::Point(-1, -1), true, cv::BORDER_REPLICATE);
    cv::Mat beard = (density > 127.5f) & onFace;
    // A beard is thick (a moustache is about a tenth of the face tall); the line of shadow along a jaw
    // or a crease is not: opening by a disc a fifteenth of the face across takes those away.
    cv::morphologyEx(beard, beard, cv::MORPH_OPEN, disc(std::max(1, face.width / 30)));
    cv::morphologyEx(beard, beard, cv::MORPH_CLOSE, disc(std::max(1, face.width / 40)));
    // A beard or moustache is a sizeable piece, mostly below the nose: its part below the nose's line
    // is left out. A piece mostly above it is a shadow on the cheek or head and stays skin whole.
    // And facial hair grows across the face's middle (a moustache over the lip, a goatee or chinstrap
    // on the chin, a full beard over both), between the nose and the chin: a piece on one side only is
    // the shadow along a jaw or under a cheekbone, and stays skin.
    cv::Mat labels, stats, centroids;
    const int count = cv::connectedComponentsWithStats(beard, labels, stats, centroids, 8, CV_32S);
    std::vector<int> above(count, 0), onMidline(count, 0);
    for (int y = 0; y < std::min(noseLine, labels.rows); y++)
        for (int x = 0; x < labels.cols; x++) above[labels.at<int>(y, x)]++;
    const Midline midline = Midline::of(brows, face);
    const float strip = std::max(1.0f, face.width / 40.0f);
    const int chinLine = std::min(labels.rows, face.y + face.height + face.height / 10);
    for (int y = std::max(0, noseLine); y < chinLine; y++)
        for (int x = 0; x < labels.cols; x++)
            if (std::abs(midline.across(x, y)) <= strip) onMidline[labels.at<int>(y, x)]++;
    const int smallest = std::max(16, face.width * face.width / 200);
    for (int label = 1; label < count; label++) {
        const int area = stats.at<int>(label, cv::CC_STAT_AREA);
        if (area < smallest || above[label] * 2 > area || onMidline[label] == 0) continue;
        cv::Mat piece = labels == label;
        piece.rowRange(0, std::min(noseLine, piece.rows)).setTo(0);
        skin.setTo(0, piece);
    }
}

void continueBeyondRegion(cv::Mat &matte, const cv::Mat &regions, const cv::Mat &lab, const cv::Mat &person,
                          bool joined, int faceWidth) {
    if (person.empty()) return;
    const cv::Mat seen = matte > 127;
    const std::vector<cv::Vec3f> samples = coreSamples(seen, lab);
    if (samples.size() < 50) return; // too little of the surface to know its colours
    const ColourModel model = ColourModel::fit(samples, ColourModel::shadedSurface);
    // d² under 11.3 lies inside 99% of a 3-D Gaussian: the surface's own colours.
    cv::Mat candidate = (model.distance(lab) < 11.3f) & person & ~regions;
    cv::morphologyEx(candidate, candidate, cv::MORPH_OPEN, disc(1));
    const cv::Mat more = joined ? joinedTo(candidate, seen)
                                : piecesOfAtLeast(candidate, std::max(16, faceWidth * faceWidth / 64));
    matte.setTo(255, more);
}

} // namespace mbx
