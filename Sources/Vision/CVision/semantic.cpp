// Hair, skin and teeth mattes around a face. Skin: a colour model learnt
// from this face's own cheeks and forehead (Lab, robust Gaussian), minus
// the hair. Hair: GrabCut inside the person, seeded above the forehead
// and beside the temples, kept off the face's core, the wall seen at the
// photo's edges (only in a given person matte's soft rim), and clothes
// unlike the hair; eyebrows on request. Teeth: bright, colourless pixels
// inside the mouth, only when there are enough of them to be an open smile,
// grown over the mouth pixels nearer the teeth's redness than the lips'.
#include "semantic.hpp"
#include "bridge.hpp"
#include "discs.hpp"
#include "landmarks.hpp"
#include "matte_steps.hpp"
#include <opencv2/imgproc.hpp>

namespace mbx {

void collect(const cv::Mat &lab, cv::Rect area, std::vector<cv::Vec3f> &samples) {
    area &= cv::Rect(0, 0, lab.cols, lab.rows);
    for (int y = area.y; y < area.y + area.height; y++)
        for (int x = area.x; x < area.x + area.width; x++) samples.push_back(lab.at<cv::Vec3f>(y, x));
}

cv::Rect part(const cv::Rect &face, double x0, double y0, double x1, double y1) {
    return cv::Rect(int(face.x + x0 * face.width), int(face.y + y0 * face.height), int((x1 - x0) * face.width),
                    int((y1 - y0) * face.height));
}

/// Skin likelihood 0...255 from this face's own skin colour.
cv::Mat skinLikelihood(const cv::Mat &lab, const cv::Rect &face) {
    std::vector<cv::Vec3f> samples;
    collect(lab, part(face, 0.18, 0.50, 0.36, 0.68), samples); // cheeks
    collect(lab, part(face, 0.64, 0.50, 0.82, 0.68), samples);
    collect(lab, part(face, 0.35, 0.12, 0.65, 0.25), samples); // forehead
    collect(lab, part(face, 0.42, 0.42, 0.58, 0.58), samples); // between the eyes, top of the nose
    return skinLikelihood(lab, samples);
}

cv::Mat skinLikelihood(const cv::Mat &lab, const std::vector<cv::Vec3f> &samples) {
    ColourModel model = ColourModel::fit(samples, ColourModel::shadedSurface);
    cv::Mat distance = model.distance(lab);
    // d² below 7.8 (95% of a 3-D Gaussian) is skin; above 16.3 (99.9%) is not.
    cv::Mat likelihood;
    distance.convertTo(likelihood, CV_32F, -1.0 / (16.3 - 7.8), 16.3 / (16.3 - 7.8));
    cv::Mat out;
    likelihood.convertTo(out, CV_8U, 255); // saturates outside 0...1
    return out;
}

/// The skin of the face and neck: skin-coloured person pixels joined to the face.
cv::Mat skinMask(const cv::Mat &likelihood, const cv::Mat &person, const cv::Rect &face) {
    cv::Mat skin = (likelihood > 127) & person;
    cv::morphologyEx(skin, skin, cv::MORPH_OPEN, disc(1));
    cv::Mat labels, stats, centroids;
    int count = cv::connectedComponentsWithStats(skin, labels, stats, centroids, 8, CV_32S);
    cv::Rect near = part(face, -0.5, -0.5, 1.5, 2.0);
    cv::Mat kept = cv::Mat::zeros(skin.size(), CV_8U);
    const int minimum = std::max(16, face.area() / 400);
    for (int label = 1; label < count; label++) {
        cv::Rect box(stats.at<int>(label, cv::CC_STAT_LEFT), stats.at<int>(label, cv::CC_STAT_TOP),
                     stats.at<int>(label, cv::CC_STAT_WIDTH), stats.at<int>(label, cv::CC_STAT_HEIGHT));
        if (stats.at<int>(label, cv::CC_STAT_AREA) >= minimum && (box & near).area() > 0) kept.setTo(255, labels == label);
    }
    return kept;
}

/// Hair: GrabCut within the person, seeded by non-skin pixels above the
/// forehead and beside the temples, with the face's core and the background
/// fixed as not-hair and skin-coloured pixels beside the face left open (fair
/// hair). Only parts reaching above the eyes are kept. Empty when no hair is
/// found above the face (bald heads, hats).
cv::Mat hairMask(const cv::Mat &colour, const cv::Mat &lab, const cv::Mat &person, const cv::Mat &skin,
                 const cv::Mat &background, const cv::Rect &face, int effort) {
    cv::Mat mask(colour.size(), CV_8U, cv::Scalar(cv::GC_BGD));
    cv::Mat notSkinPerson = person & ~skin & ~background;
    cv::Mat head = cv::Mat::zeros(colour.size(), CV_8U);
    cv::ellipse(head, cv::Point(face.x + face.width / 2, int(face.y + 0.45 * face.height)),
                cv::Size(int(1.0 * face.width), int(1.15 * face.height)), 0, 0, 360, cv::Scalar(255), cv::FILLED);
    // Long hair falls beside the neck onto the shoulders. Below the chin it
    // starts as "probably not hair", so the hair's colour is learnt from
    // the head and not from the clothes, which GrabCut can then tell apart.
    cv::Mat shoulders = cv::Mat::zeros(colour.size(), CV_8U);
    cv::rectangle(shoulders, part(face, -0.45, 0.5, 1.45, 2.3), cv::Scalar(255), cv::FILLED);
    shoulders &= ~head;
    // Eyes, nose and mouth are never head hair, whatever their colour.
    cv::Mat innerFace = cv::Mat::zeros(colour.size(), CV_8U);
    cv::rectangle(innerFace, part(face, 0.15, 0.3, 0.85, 1.0), cv::Scalar(255), cv::FILLED);
    notSkinPerson &= ~innerFace;
    mask.setTo(cv::GC_PR_BGD, notSkinPerson);
    mask.setTo(cv::GC_PR_FGD, notSkinPerson & head);
    head |= shoulders;
    // Fair hair can look like skin: skin-coloured pixels away from the face
    // stay open, so hair seeded above the forehead can claim them.
    cv::Mat faceCore = cv::Mat::zeros(colour.size(), CV_8U);
    cv::ellipse(faceCore, cv::Point(face.x + face.width / 2, int(face.y + 0.55 * face.height)),
                cv::Size(int(0.42 * face.width), int(0.55 * face.height)), 0, 0, 360, cv::Scalar(255), cv::FILLED);
    mask.setTo(cv::GC_PR_BGD, person & skin & ~background & head & ~faceCore & ~innerFace);
    cv::Mat seeds = cv::Mat::zeros(colour.size(), CV_8U);
    cv::rectangle(seeds, part(face, 0.1, -0.6, 0.9, 0.02), cv::Scalar(255), cv::FILLED);
    // Beside the temples too: a tight crop may cut the top of the head off.
    cv::rectangle(seeds, part(face, -0.25, -0.1, 0.08, 0.25), cv::Scalar(255), cv::FILLED);
    cv::rectangle(seeds, part(face, 0.92, -0.1, 1.25, 0.25), cv::Scalar(255), cv::FILLED);
    seeds &= notSkinPerson;
    if (cv::countNonZero(seeds) < face.area() / 100) return cv::Mat::zeros(colour.size(), CV_8U);
    cv::erode(seeds, seeds, cv::Mat());
    mask.setTo(cv::GC_FGD, seeds);
    cv::Mat backgroundModel, foregroundModel;
    // Only the part that can change, and a margin of background around it
    // for the background's colours, goes through the graph cut.
    const int margin = face.width / 4;
    cv::Rect open = cv::boundingRect(mask != cv::GC_BGD);
    open = cv::Rect(open.x - margin, open.y - margin, open.width + 2 * margin, open.height + 2 * margin) &
           cv::Rect(0, 0, colour.cols, colour.rows);
    cv::Mat openMask = mask(open);
    cv::grabCut(colour(open), openMask, cv::Rect(), backgroundModel, foregroundModel, effort <= 1 ? 2 : 3, cv::GC_INIT_WITH_MASK);
    cv::Mat hair = (mask == cv::GC_FGD) | (mask == cv::GC_PR_FGD);
    // Below the eyes, keep only what has the colour of the hair above the
    // forehead: a light scarf or collar under the chin must not join dark
    // hair, whether it lies on the shoulders or just under the face.
    std::vector<cv::Vec3f> seedColours;
    for (int y = 0; y < seeds.rows; y++)
        for (int x = 0; x < seeds.cols; x++)
            if (seeds.at<uchar>(y, x)) seedColours.push_back(lab.at<cv::Vec3f>(y, x));
    if (seedColours.size() >= 20) {
        cv::Mat unlikeHair = ColourModel::fit(seedColours, ColourModel::shadedSurface).distance(lab) > 16.3;
        cv::Mat belowEyes = cv::Mat::zeros(colour.size(), CV_8U);
        const int eyes = std::clamp(face.y + int(0.3 * face.height), 0, colour.rows);
        belowEyes.rowRange(eyes, colour.rows).setTo(255);
        hair.setTo(0, (shoulders | belowEyes) & unlikeHair);
    }
    cv::morphologyEx(hair, hair, cv::MORPH_OPEN, disc(1));
    // Hair grows from the top of the head: keep only the parts that reach
    // above the eyes, not patches of wall or clothes near the shoulders.
    cv::Mat labels, stats, centroids;
    int count = cv::connectedComponentsWithStats(hair, labels, stats, centroids, 8, CV_32S);
    cv::Mat kept = cv::Mat::zeros(hair.size(), CV_8U);
    const int eyeLine = face.y + int(0.3 * face.height);
    for (int label = 1; label < count; label++)
        if (stats.at<int>(label, cv::CC_STAT_TOP) < eyeLine) kept.setTo(255, labels == label);
    return kept;
}

/// Eyebrows: in each half of the band above the eyes, the largest wide
/// stroke darker than the skin around it (a black-hat of the lightness keeps
/// dark marks thinner than an eighth of the face, not the hair or the wall
/// beside the head) and not skin-coloured.
cv::Mat browMask(const cv::Mat &lab, const cv::Mat &skinLikelihood, const cv::Rect &face) {
    cv::Mat out = cv::Mat::zeros(lab.size(), CV_8U);
    cv::Mat lightness, marks;
    cv::extractChannel(lab, lightness, 0);
    cv::GaussianBlur(lightness, lightness, cv::Size(5, 5), 0);
    const int kernel = std::max(3, face.height / 8) | 1;
    cv::morphologyEx(lightness, marks, cv::MORPH_BLACKHAT,
                     disc(kernel / 2));
    cv::Mat dark = (marks > 10) & (skinLikelihood < 128);
    cv::morphologyEx(dark, dark, cv::MORPH_OPEN, disc(1));
    for (auto [x0, x1] : {std::pair{0.08, 0.48}, std::pair{0.52, 0.92}}) {
        cv::Rect band = part(face, x0, 0.12, x1, 0.38) & cv::Rect(0, 0, lab.cols, lab.rows);
        if (band.area() <= 0) continue;
        cv::Mat labels, stats, centroids;
        int count = cv::connectedComponentsWithStats(dark(band), labels, stats, centroids, 8, CV_32S);
        int best = 0;
        for (int label = 1; label < count; label++) {
            int width = stats.at<int>(label, cv::CC_STAT_WIDTH), height = stats.at<int>(label, cv::CC_STAT_HEIGHT);
            bool wide = width >= face.width / 8 && 2 * width >= 3 * height;
            if (wide && (best == 0 || stats.at<int>(label, cv::CC_STAT_AREA) > stats.at<int>(best, cv::CC_STAT_AREA)))
                best = label;
        }
        if (best > 0) out(band).setTo(255, labels == best);
    }
    return out;
}

/// Where the teeth are looked for: around the mouth's corners when they are
/// known (as wide as the lips reach past them, as tall as a laughing mouth
/// opens), else where a Haar box's mouth lies.
static cv::Rect mouthRegion(const cv::Rect &face, const cv::Rect &mouth) {
    if (mouth.empty()) return part(face, 0.22, 0.62, 0.78, 0.98);
    const double width = mouth.width, x = mouth.x + width / 2, y = mouth.y + mouth.height / 2.0;
    return cv::Rect(int(std::lround(x - 0.7 * width)), int(std::lround(y - 0.45 * width)), int(std::lround(1.4 * width)),
                    int(std::lround(0.95 * width)));
}

/// Teeth: inside the mouth, pixels brighter and far less coloured than the
/// lips and skin around them, grown by redness. Empty unless they cover
/// enough of the mouth.
cv::Mat teethMask(const cv::Mat &lab, const cv::Mat &skinLikelihood, const cv::Rect &face, const cv::Rect &knownMouth, bool &found) {
    cv::Rect mouth = mouthRegion(face, knownMouth) & cv::Rect(0, 0, lab.cols, lab.rows);
    cv::Mat out = cv::Mat::zeros(lab.size(), CV_8U);
    found = false;
    if (mouth.area() <= 0) return out;
    cv::Mat region = lab(mouth);
    cv::Scalar mean = cv::mean(region);
    double meanChroma = std::hypot(mean[1], mean[2]);
    cv::Mat teeth(region.size(), CV_8U);
    region.forEach<cv::Vec3f>([&](const cv::Vec3f &p, const int *at) {
        double chroma = std::hypot(p[1], p[2]);
        teeth.at<uchar>(at[0], at[1]) = (p[0] > mean[0] + 6 && chroma < 0.7 * meanChroma) ? 255 : 0;
    });
    cv::morphologyEx(teeth, teeth, cv::MORPH_OPEN, disc(1));
    cv::Mat labels, stats, centroids;
    int count = cv::connectedComponentsWithStats(teeth, labels, stats, centroids, 8, CV_32S);
    // A pale patch almost all of this face's own skin colour is skin (a
    // highlight over the upper lip, the chin), not teeth; teeth stained or
    // lit warm may share some of it.
    std::vector<int> skinLike(size_t(count), 0);
    const cv::Mat skinInMouth = skinLikelihood(mouth);
    for (int y = 0; y < labels.rows; y++)
        for (int x = 0; x < labels.cols; x++)
            if (skinInMouth.at<uchar>(y, x) == 255) skinLike[size_t(labels.at<int>(y, x))]++;
    for (int label = 1; label < count; label++)
        if (5 * skinLike[size_t(label)] > 4 * stats.at<int>(label, cv::CC_STAT_AREA)) stats.at<int>(label, cv::CC_STAT_AREA) = 0;
    // Teeth sit together: keep the largest bright patch and its close neighbours.
    auto box = [&](int label) {
        return cv::Rect(stats.at<int>(label, cv::CC_STAT_LEFT), stats.at<int>(label, cv::CC_STAT_TOP),
                        stats.at<int>(label, cv::CC_STAT_WIDTH), stats.at<int>(label, cv::CC_STAT_HEIGHT));
    };
    int largest = 0;
    for (int label = 1; label < count; label++)
        if (largest == 0 || stats.at<int>(label, cv::CC_STAT_AREA) > stats.at<int>(largest, cv::CC_STAT_AREA)) largest = label;
    int total = 0;
    cv::Mat kept = cv::Mat::zeros(teeth.size(), CV_8U);
    if (largest > 0) {
        // Neighbours: patches within half the largest one's height of it (a row of
        // teeth split by a gap), not a pale collar at the bottom of the mouth box.
        const cv::Rect main = box(largest);
        const cv::Rect reach(main.x - main.height / 2, main.y - main.height / 2, main.width + main.height, main.height * 2);
        for (int label = 1; label < count; label++) {
            int area = stats.at<int>(label, cv::CC_STAT_AREA);
            if (area >= std::max(4, mouth.area() / 200) && (label == largest || (box(label) & reach).area() > 0)) {
                kept.setTo(255, labels == label);
                total += area;
            }
        }
    }
    found = total >= mouth.area() / 40;
    if (!found) return out;
    // The bright core misses teeth in the mouth's shadow. Each mouth pixel
    // goes with the nearer of two redness levels, the core's and the lips'
    // (the upper quartile of the rest of the mouth box); the less red ones
    // joined to the core are teeth too.
    std::vector<cv::Mat> channels;
    cv::split(region, channels);
    const cv::Mat &redness = channels[1];
    std::vector<float> lips;
    for (int y = 0; y < region.rows; y++)
        for (int x = 0; x < region.cols; x++)
            if (!kept.at<uchar>(y, x)) lips.push_back(redness.at<float>(y, x));
    if (!lips.empty()) {
        std::nth_element(lips.begin(), lips.begin() + lips.size() * 3 / 4, lips.end());
        const double between = (cv::mean(redness, kept)[0] + lips[lips.size() * 3 / 4]) / 2;
        // Only around the core: the inner mouth lies between the lips, and the
        // shadow under a chin or a pale collar is as little red as teeth.
        cv::Rect core = cv::boundingRect(kept);
        cv::Rect around(core.x - core.width / 4, core.y - core.height / 2, core.width * 3 / 2, core.height * 2);
        cv::Mat near = cv::Mat::zeros(region.size(), CV_8U);
        near(around & cv::Rect(0, 0, region.cols, region.rows)).setTo(255);
        cv::Mat grown = ((redness < between) & near) | kept;
        cv::Mat labels;
        cv::connectedComponents(grown, labels, 8, CV_32S);
        std::vector<bool> joined(size_t(region.rows * region.cols + 1), false);
        for (int y = 0; y < region.rows; y++)
            for (int x = 0; x < region.cols; x++)
                if (kept.at<uchar>(y, x)) joined[size_t(labels.at<int>(y, x))] = true;
        for (int y = 0; y < region.rows; y++)
            for (int x = 0; x < region.cols; x++)
                if (joined[size_t(labels.at<int>(y, x))]) kept.at<uchar>(y, x) = 255;
    }
    kept.copyTo(out(mouth));
    return out;
}

} // namespace mbx

extern "C" int mbx_cv_semantic_mattes(const mbx_cv_image *image, const mbx_cv_matte_options *options,
                                      const mbx_cv_face *face, const mbx_cv_image *person,
                                      mbx_cv_semantic_planes *planes, mbx_cv_error *error) {
    return mbx::guarded(error, [&] {
        if (!image || !options || !face || !planes) throw mbx::Failure{"missing argument"};
        mbx::WorkingFrame frame = mbx::WorkingFrame::make(*image, *options);
        // The face mesh, when installed, outlines the face's parts on the upright frame.
        mbx::FaceLandmarks marks;
        const bool landmarks = options->landmark_model && *options->landmark_model &&
                               mbx::findFaceLandmarks(frame.colour, frame.toWorking(face->box), face->roll_degrees,
                                                      options->landmark_model, marks);
        planes->landmarks_found = landmarks;
        planes->person_fallback = 0;
        // Everything below is worked out with the face's eyes level, and each
        // matte turned back before it is written.
        const mbx::LevelledFrame levelled = mbx::LevelledFrame::make(frame.colour.size(), frame.toWorking(face->box),
                                                                     landmarks ? marks.rollDegrees : face->roll_degrees);
        if (landmarks) marks = marks.transformed(levelled.forward);
        cv::Mat colour = levelled.level(frame.colour, cv::INTER_LINEAR, cv::BORDER_REPLICATE);
        cv::Rect working = levelled.box(frame.toWorking(face->box));
        cv::Rect mouth = face->mouth.width > 0 ? levelled.box(frame.toWorking(face->mouth)) : cv::Rect();
        auto write = [&](const cv::Mat &matte, mbx_cv_plane &plane) {
            mbx::writePlane(levelled.back(matte), frame.orientation, plane);
        };
        cv::Mat lab = mbx::toLab(colour);
        // The wall at the photo's edges: held out of the person (when it is
        // worked out here) and of the hair.
        mbx::BorderBackground wall = mbx::borderBackground(lab, working);
        cv::Mat personHard, personSoft;
        if (person) {
            cv::Mat given = mbx::upright(mbx::toGrey8(*person, "portrait matte"), frame.orientation);
            cv::resize(given, personSoft, frame.colour.size(), 0, 0, cv::INTER_AREA);
            personSoft = levelled.level(personSoft, cv::INTER_LINEAR, cv::BORDER_CONSTANT);
            personHard = personSoft > 127;
            // A person matte that misses the face (a dark suit in a crowd, a
            // second person matted instead) is not trusted: the person is
            // worked out around the face, as without a matte.
            cv::Mat core = landmarks ? mbx::faceOval(marks, colour.size()) : cv::Mat::zeros(colour.size(), CV_8U);
            if (!landmarks)
                cv::ellipse(core, cv::Point(working.x + working.width / 2, int(working.y + 0.55 * working.height)),
                            cv::Size(int(0.35 * working.width), int(0.45 * working.height)), 0, 0, 360, cv::Scalar(255), cv::FILLED);
            if (mbx::personMissesFace(personHard, core)) {
                planes->person_fallback = 1;
                personSoft.release();
            }
        }
        if (personSoft.empty()) {
            personHard = mbx::personMask(colour, working, wall, options->effort);
            // The head the landmarks outline reaches beyond the face: the hair
            // is looked for there even when the person found here missed it.
            if (landmarks) personHard |= mbx::headExtent(marks, colour.size());
        }
        const bool trustedPerson = !personSoft.empty();
        // The body's keypoints, in the box of the person joined to the face.
        mbx::BodyPose pose;
        const bool posed = landmarks && options->pose_model && *options->pose_model &&
                           mbx::findBodyPose(colour, mbx::personExtent(personHard, marks), options->pose_model, pose);
        planes->pose_found = posed;
        planes->pose_outside_person = 0;
        if (posed && person) {
            cv::Mat given = personSoft;
            if (given.empty()) { // not trusted: the given matte as it was
                cv::resize(mbx::upright(mbx::toGrey8(*person, "portrait matte"), frame.orientation), given, frame.colour.size(), 0, 0, cv::INTER_AREA);
                given = levelled.level(given, cv::INTER_LINEAR, cv::BORDER_CONSTANT);
            }
            planes->pose_outside_person = mbx::keypointsOutside(pose, given);
        }
        int radius = std::max(2, std::max(colour.cols, colour.rows) / 200);
        const std::vector<cv::Vec3f> samples = landmarks ? mbx::landmarkSkinSamples(lab, marks) : std::vector<cv::Vec3f>();
        cv::Mat likelihood = landmarks ? mbx::skinLikelihood(lab, samples) : mbx::skinLikelihood(lab, working);
        cv::Mat skin = landmarks ? mbx::landmarkSkin(colour, lab, samples, likelihood, personHard, marks, posed ? &pose : nullptr)
                                 : mbx::skinMask(likelihood, personHard, working);
        // Hair is worked out for the skin matte too: fair hair the skin
        // colour model took is not skin.
        // Where a given person matte is sure, it has told the person from the
        // background; there the wall model would only take hair that reaches
        // the photo's edges. It still holds the wall out of the matte's soft rim.
        const cv::Mat hairBackground = trustedPerson ? wall.likely & (personSoft < 230) : wall.likely;
        cv::Mat hair = mbx::hairMask(colour, lab, personHard, skin, hairBackground, working, options->effort);
        if (landmarks)
            mbx::settleHairAndSkin(skin, hair, likelihood, marks);
        else
            skin &= ~hair;
        if (planes->skin.data) write(mbx::softEdges(colour, skin, radius), planes->skin);
        if (planes->hair.data) {
            if (planes->brows_in_hair)
                hair |= landmarks ? mbx::landmarkBrows(likelihood, marks) : mbx::browMask(lab, likelihood, working);
            cv::Mat soft = mbx::softEdges(colour, hair, radius);
            if (trustedPerson) {
                // Where hair meets the background, the person matte's own soft
                // edge (strands, a neural matte's alpha) is the hair's edge.
                cv::Mat ring;
                cv::dilate(hair, ring, mbx::disc(radius));
                ring &= ~personHard;
                cv::Mat outer = cv::max(soft, personSoft);
                outer.copyTo(soft, ring);
            }
            write(soft, planes->hair);
        }
        bool teethFound = false;
        cv::Mat teeth = cv::Mat::zeros(lab.size(), CV_8U);
        if (face->box.width >= MBX_CV_SMALLEST_TEETH_FACE)
            teeth = landmarks ? mbx::landmarkTeeth(lab, likelihood, working, marks, teethFound)
                              : mbx::teethMask(lab, likelihood, working, mouth, teethFound);
        planes->teeth_found = teethFound;
        if (planes->teeth.data) write(mbx::softEdges(colour, teeth, 1), planes->teeth);
    });
}
