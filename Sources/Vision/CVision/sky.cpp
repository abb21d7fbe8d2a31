// The sky matte (iOS: semanticskymatte). Sky is what the photo shows above
// everything else: smooth (no texture at the working scale), either clearly
// blue or, when overcast, neutral and among the brightest parts of the
// photo, and connected to the top edge of the upright frame. Those regions
// seed a colour model of this photo's sky, which then claims the smooth
// pixels of the same colours joined to them (haze near the horizon, clouds
// like the seeds) and the sky-coloured band next to rooftops that the
// texture measure leaves out; a region running along the frame's bottom
// (or, for white sky, colours that do) is a backdrop or a wall, not sky; holes such as birds, and clouds cut by the
// frame's edge, are filled, the person is held out, and the edges are
// softened along the photo (branches against the sky).
#include "bridge.hpp"
#include "discs.hpp"
#include "matte_steps.hpp"
#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>

namespace mbx {

namespace {

/// Local texture: the mean gradient magnitude of lightness (Lab L, 0...100) around each pixel.
cv::Mat texture(const cv::Mat &lab) {
    cv::Mat lightness, dx, dy, magnitude, mean;
    cv::extractChannel(lab, lightness, 0);
    cv::GaussianBlur(lightness, lightness, cv::Size(3, 3), 0);
    cv::Sobel(lightness, dx, CV_32F, 1, 0);
    cv::Sobel(lightness, dy, CV_32F, 0, 1);
    cv::magnitude(dx, dy, magnitude);
    cv::blur(magnitude, mean, cv::Size(7, 7));
    return mean;
}

/// Components of `mask` that reach the frame's top, or its left or right
/// edge above the middle (sky seen past a tree or a wall at the top), and,
/// when `groundFree`, do not reach the bottom rows (sky lies above the
/// ground); components under `smallest` pixels are dropped.
cv::Mat fromAbove(const cv::Mat &mask, bool groundFree, int smallest = 0) {
    cv::Mat labels, stats, centroids;
    int count = cv::connectedComponentsWithStats(mask, labels, stats, centroids, 8, CV_32S);
    std::vector<bool> keep(count, false), grounded(count, false);
    const int band = std::max(1, mask.rows / 50);
    for (int y = 0; y < band; y++)
        for (int x = 0; x < mask.cols; x++) keep[labels.at<int>(y, x)] = true;
    for (int y = 0; y < mask.rows / 2; y++)
        for (int x : {0, mask.cols - 1}) keep[labels.at<int>(y, x)] = true;
    for (int y = mask.rows - band; y < mask.rows; y++)
        for (int x = 0; x < mask.cols; x++) grounded[labels.at<int>(y, x)] = true;
    cv::Mat out = cv::Mat::zeros(mask.size(), CV_8U);
    for (int y = 0; y < mask.rows; y++)
        for (int x = 0; x < mask.cols; x++) {
            const int label = labels.at<int>(y, x);
            if (label != 0 && keep[label] && !(groundFree && grounded[label]) &&
                stats.at<int>(label, cv::CC_STAT_AREA) >= smallest)
                out.at<uchar>(y, x) = 255;
        }
    return out;
}

/// The components of `mask` that touch the frame's bottom rows along a quarter of its width or more.
cv::Mat floors(const cv::Mat &mask) {
    cv::Mat labels;
    const int count = cv::connectedComponents(mask, labels, 8, CV_32S);
    const int band = std::max(1, mask.rows / 50);
    std::vector<int> touched(count, 0);
    for (int x = 0; x < mask.cols; x++) {
        int label = 0;
        for (int y = mask.rows - band; y < mask.rows && label == 0; y++) label = labels.at<int>(y, x);
        touched[label]++;
    }
    cv::Mat out = cv::Mat::zeros(mask.size(), CV_8U);
    for (int label = 1; label < count; label++)
        if (touched[label] * 4 >= mask.cols) out.setTo(255, labels == label);
    return out;
}

/// Fills holes of `mask` up to `largest` pixels (birds, clouds): those it
/// encloses, and those cut by the frame's top or sides (a cloud at the
/// photo's edge) whose edge inside the photo is nearly all sky. Nothing that
/// reaches the bottom rows is filled.
void fillSmallHoles(cv::Mat &mask, int largest) {
    cv::Mat labels, stats, centroids;
    cv::Mat holes = ~mask;
    int count = cv::connectedComponentsWithStats(holes, labels, stats, centroids, 4, CV_32S);
    for (int label = 1; label < count; label++) {
        const int x = stats.at<int>(label, cv::CC_STAT_LEFT), y = stats.at<int>(label, cv::CC_STAT_TOP);
        const int w = stats.at<int>(label, cv::CC_STAT_WIDTH), h = stats.at<int>(label, cv::CC_STAT_HEIGHT);
        if (stats.at<int>(label, cv::CC_STAT_AREA) > largest || y + h == mask.rows) continue;
        const cv::Rect near = cv::Rect(x - 1, y - 1, w + 2, h + 2) & cv::Rect(0, 0, mask.cols, mask.rows);
        const cv::Mat hole = labels(near) == label;
        cv::Mat filled = mask(near);
        if (x > 0 && y > 0 && x + w < mask.cols) {
            filled.setTo(255, hole);
            continue;
        }
        cv::Mat edge;
        cv::dilate(hole, edge, cv::Mat());
        edge &= ~hole;
        const int around = cv::countNonZero(edge);
        if (around > 0 && cv::countNonZero(edge & filled) * 20 >= around * 19) filled.setTo(255, hole);
    }
}

/// The sky as a hard 0/255 mask in the working frame (empty when there is none).
cv::Mat skyMask(const cv::Mat &colour, const cv::Mat &person, int faceWidth, double exposureValue) {
    cv::Mat lab = toLab(colour);
    std::vector<cv::Mat> channels;
    cv::split(lab, channels);
    const cv::Mat &L = channels[0], &a = channels[1], &b = channels[2];
    const cv::Mat roughness = texture(lab);
    cv::Mat smooth = roughness < 6.0f; // Sobel magnitude of L, averaged
    // Blue sky: clearly blue, not dark.
    cv::Mat blue = (b < -8.0f) & (b < -0.8 * cv::abs(a) - 4.0f) & (L > 35.0f);
    // Overcast or white sky: neutral and among the brightest quarter of the photo.
    cv::Mat chroma;
    cv::magnitude(a, b, chroma);
    cv::Mat sorted = L.reshape(1, 1).clone();
    cv::sort(sorted, sorted, cv::SORT_EVERY_ROW | cv::SORT_ASCENDING);
    const float bright = std::max(75.0f, sorted.at<float>(0, int(sorted.cols * 0.75)));
    cv::Mat neutral = (chroma < 10.0f) & (L >= bright);
    const bool closePortrait = faceWidth > 0 && faceWidth * 6 > colour.cols;
    // Overcast sky is daylight (EV100 about 12 and up; indoors 4 to 8): in a
    // photo exposed for less light, a bright neutral region is a white
    // table, wall or ceiling, so there only blue counts.
    const bool indoorLight = std::isfinite(exposureValue) && exposureValue < 10;
    cv::Mat smoothBlue = smooth & blue, smoothNeutral = smooth & neutral & ~blue;
    if (!person.empty()) {
        smoothBlue &= ~person;
        smoothNeutral &= ~person;
    }
    const cv::Mat opening = disc(1);
    cv::morphologyEx(smoothBlue, smoothBlue, cv::MORPH_OPEN, opening);
    cv::morphologyEx(smoothNeutral, smoothNeutral, cv::MORPH_OPEN, opening);
    // A neutral region that reaches the bottom is a wall, floor or table, not sky.
    // Blue from above is sky; neutral from above (with blue or alone) is sky
    // when it is one large region that does not reach the bottom (not the
    // white panels of a facade). A close portrait's backdrop is neutral and
    // bright too, so there only blue counts.
    const int area = colour.rows * colour.cols;
    cv::Mat seeds = fromAbove(smoothBlue, false);
    if (!closePortrait && !indoorLight) seeds |= fromAbove(smoothBlue | smoothNeutral, true, area / 25);
    if (cv::countNonZero(seeds) < area / 50) return cv::Mat::zeros(colour.size(), CV_8U);

    // This photo's sky colours, then the smooth pixels like them joined to
    // the seeds; a blue sky also claims smooth blue of its colour in gaps
    // no lower than the seeds reach (sky between branches), since blue that
    // smooth, that high, is rarely anything else.
    std::vector<cv::Vec3f> samples;
    int lowest = 0;
    for (int y = 0; y < lab.rows; y++)
        for (int x = 0; x < lab.cols; x++)
            if (seeds.at<uchar>(y, x)) {
                lowest = y;
                if ((x + y) % 2 == 0) samples.push_back(lab.at<cv::Vec3f>(y, x));
            }
    const ColourModel model = ColourModel::fit(samples, ColourModel::plain);
    const cv::Mat like = model.distance(lab) < 16.3f;
    // Overcast sky grows only over pixels about as bright as it.
    const bool blueSky = model.mean[2] < -8;
    cv::Mat skyColoured = like & (blueSky ? cv::Mat(L > 0.0f) : cv::Mat(L > bright - 10));
    if (!person.empty()) skyColoured &= ~person;
    const cv::Mat smoothSkyColoured = skyColoured & (roughness < 9.0f);
    // A white or grey "sky" whose colours also run on, smooth, along the frame's bottom is a backdrop
    // or a room's wall (an object shot on white): indoors, not sky.
    if (!blueSky && cv::countNonZero(floors(smoothSkyColoured)) > 0) return cv::Mat::zeros(colour.size(), CV_8U);
    cv::Mat grown = seeds | smoothSkyColoured;
    cv::Mat sky = fromAbove(grown, false);
    if (blueSky) {
        cv::Mat gaps = grown & smoothBlue;
        gaps.rowRange(lowest + 1, gaps.rows).setTo(0);
        sky |= gaps;
    }
    // The texture measure reaches a few pixels past every edge, so the sky
    // stops short of the rooftops: it takes the sky-coloured pixels of
    // that band back.
    cv::Mat band;
    cv::dilate(sky, band, disc(5));
    sky |= band & skyColoured;
    // Sky lies behind and above what stands on the ground: a region that runs on down to the frame's
    // bottom along a quarter of its width or more is a backdrop, a floor or a wall, however blue or
    // bright (an object shot on white). Sky seen looking up may reach a bottom corner, no more.
    sky &= ~floors(sky);
    fillSmallHoles(sky, area / 20); // birds, clouds
    return sky;
}

} // namespace

} // namespace mbx

extern "C" int mbx_cv_sky_matte(const mbx_cv_image *image, const mbx_cv_matte_options *options,
                                const mbx_cv_image *person, int face_width, double exposure_value, mbx_cv_plane *matte,
                                int *found, mbx_cv_error *error) {
    return mbx::guarded(error, [&] {
        if (!image || !options || !matte || !found) throw mbx::Failure{"missing argument"};
        mbx::WorkingFrame frame = mbx::WorkingFrame::make(*image, *options);
        cv::Mat personHard;
        if (person) {
            cv::Mat given = mbx::upright(mbx::toGrey8(*person, "portrait matte"), frame.orientation);
            cv::resize(given, personHard, frame.colour.size(), 0, 0, cv::INTER_AREA);
            personHard = personHard > 127;
        }
        cv::Mat sky = mbx::skyMask(frame.colour, personHard, int(face_width * frame.scale), exposure_value);
        *found = cv::countNonZero(sky) > 0;
        int radius = std::max(2, std::max(frame.colour.cols, frame.colour.rows) / 200);
        cv::Mat soft = *found ? mbx::softEdges(frame.colour, sky, radius) : sky;
        mbx::writePlaneGuided(soft, *found ? mbx::photoAt(*image, cv::Size(matte->width, matte->height)) : cv::Mat(),
                              frame.orientation, *matte);
    });
}
