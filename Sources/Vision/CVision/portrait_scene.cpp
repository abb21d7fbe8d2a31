// The scene a portrait effect is rendered from: every pixel one fragment, or
// two where an edge passes, each with its colour and disparity.
//
// - Measured depth (an iPhone's, a stereo pair's) is refined at a working size
//   of 1024 px: made edge-true by the bilateral solver (depth_refine.cpp).
// - With a portrait matte the subject is one plane at its median disparity
//   (Photos keeps a person sharp, whatever the depth inside them says) and
//   the matte is its alpha; what lies behind it takes the disparity of what
//   surrounds the subject, never the subject's.
// - Elsewhere, at each depth edge, a pixel is shared between the near and the
//   far side by its colour (a soft edge stays soft).
// - With a matte and no depth the subject stands in front of a far
//   background, the ground under its feet receding from them (ground.cpp).
#include "bridge.hpp"
#include "discs.hpp"
#include "ground.hpp"
#include "matte_ground.hpp"
#include "portrait_scene.hpp"
#include "push_pull.hpp"
#include <algorithm>
#include <cmath>
#include <opencv2/imgproc.hpp>
#include <vector>

namespace mbx {

namespace {

/// Where a pixel's fragments come from (working size).
enum Zone : uchar { plainZone = 0, matteZone = 1, edgeZone = 2 };

/// The median of `values` where `mask` is set (1 when nothing is).
float median(const cv::Mat &values, const cv::Mat &mask) {
    std::vector<float> picked;
    for (int y = 0; y < values.rows; ++y) {
        const float *v = values.ptr<float>(y);
        const uchar *m = mask.ptr<uchar>(y);
        for (int x = 0; x < values.cols; ++x)
            if (m[x]) picked.push_back(v[x]);
    }
    if (picked.empty()) return 1;
    std::nth_element(picked.begin(), picked.begin() + picked.size() / 2, picked.end());
    return picked[picked.size() / 2];
}

/// A pixel's share of the first fragment: the matte in its zone, the near side's share of its
/// colour at depth edges, else 1.
float alphaFor(uchar zone, const float *pixel, float matte, const float *nearColour, const float *farColour, float side) {
    if (zone == matteZone) return std::clamp(matte, 0.0f, 1.0f);
    if (zone == edgeZone) return nearShare(pixel, nearColour, farColour, side);
    return 1;
}

/// The subject's (or near side's) share at the working size, for the smooth edge colours: as at
/// full size in the zones, and elsewhere what a pixel is: with a matte, not the subject; without
/// one, the side of the nearest depth edge it lies on.
cv::Mat workingAlpha(const PortraitScene &scene) {
    const cv::Size working = scene.zones.size();
    cv::Mat alpha(working, CV_32F), matte;
    if (!scene.matte.empty()) cv::resize(scene.matte, matte, working, 0, 0, cv::INTER_AREA);
    for (int y = 0; y < working.height; ++y) {
        const uchar *z = scene.zones.ptr<uchar>(y);
        const float *p = scene.working.ptr<float>(y), *m = matte.empty() ? nullptr : matte.ptr<float>(y);
        const float *nearColour = scene.edges.nearColour.ptr<float>(y), *farColour = scene.edges.farColour.ptr<float>(y);
        const float *side = scene.edges.nearMask.ptr<float>(y);
        float *a = alpha.ptr<float>(y);
        for (int x = 0; x < working.width; ++x)
            a[x] = z[x] == plainZone ? (scene.hasMatte ? 0.0f : side[x]) : alphaFor(z[x], p + 3 * x, m ? m[x] : 1, nearColour + 3 * x, farColour + 3 * x, side[x]);
    }
    return alpha;
}

} // namespace

PortraitScene buildScene(const cv::Mat &photo, const cv::Mat &matte, const cv::Mat &disparity, int orientation, StepClock &step,
                         const cv::Mat &refined, cv::Mat *keep, bool leaveGroundOut) {
    PortraitScene scene;
    scene.size = photo.size();
    scene.photo = photo;
    scene.matte = matte;
    scene.measured = !disparity.empty();
    scene.hasMatte = !matte.empty();
    // The working size: 1024 px on the long side, or half the photo's for a photo under 2048 px
    // (the camera app's screen-size renders), never under 512 px nor above the photo's own.
    const int longSide = std::max(photo.cols, photo.rows);
    const double workingScale = std::min(1.0, std::clamp(longSide / 2.0, 512.0, 1024.0) / longSide);
    const cv::Size working(std::max(1, int(std::lround(photo.cols * workingScale))), std::max(1, int(std::lround(photo.rows * workingScale))));
    cv::Mat reduced, guide(working, CV_32FC3), subject;
    cv::resize(photo, reduced, working, 0, 0, cv::INTER_AREA);
    for (int y = 0; y < working.height; ++y) photoRow(reduced, y, guide.ptr<float>(y));
    scene.working = guide;
    if (!matte.empty()) cv::resize(matte, subject, working, 0, 0, cv::INTER_AREA);
    const int band = std::max(2, int(std::lround(std::max(working.width, working.height) * 0.012)));

    cv::Mat depth; // everything but the matte's subject
    float subjectPlane = 1;
    if (scene.measured) {
        cv::Mat unsure;
        if (!subject.empty()) {
            cv::Mat inside, outside;
            cv::dilate(subject > 0.05f, inside, disc(band));
            cv::dilate(subject < 0.95f, outside, disc(band));
            unsure = inside & outside;
        }
        if (refined.empty()) {
            depth = refineDisparity(guide, disparity, unsure);
        } else {
            cv::resize(refined, depth, working, 0, 0, cv::INTER_LINEAR);
        }
        if (keep) *keep = depth.clone();
        step(refined.empty() ? "depth refined" : "depth reused");
        if (!subject.empty()) subjectPlane = median(depth, subject > 0.5f);
        if (leaveGroundOut && !subject.empty()) {
            // The surface under the subject's feet, which the matte covers down to the frame's foot, left out.
            cv::Mat kept = subjectWithoutGround(upright(guide, orientation), upright(depth, orientation), upright(subject, orientation),
                                                subjectPlane, band);
            if (!kept.empty()) {
                kept = stored(kept, orientation);
                subject = subject.mul(kept);
                cv::Mat keptAtMatte;
                cv::resize(kept, keptAtMatte, matte.size(), 0, 0, cv::INTER_LINEAR);
                scene.matte = matte.mul(keptAtMatte);
                scene.groundNote = "the surface under the subject left out of its matte (where depth could not tell them apart, by colour)";
                subjectPlane = median(depth, subject > 0.5f);
            }
            step("ground left out");
        }
        scene.subjectPlane = subjectPlane;
    } else {
        // The ground lies under the subject's feet as the photo is seen, not as its pixels are stored
        // (a phone held upright stores them on their side).
        GroundEstimate ground = estimateGround(upright(guide, orientation), subject.empty() ? subject : upright(subject, orientation));
        depth = stored(ground.disparity, orientation);
        scene.groundNote = ground.note;
    }
    step("ground or subject plane");
    // Where the matte decides: on it and a band around its edge.
    cv::Mat matteArea;
    if (!subject.empty()) cv::dilate(subject > 0.02f, matteArea, disc(band));
    if (!subject.empty()) {
        // Behind the subject: what surrounds it, never the subject's own disparity. A phone's depth
        // runs a little past the subject's outline, so it is taken from a little further out.
        cv::Mat clear;
        cv::erode(subject < 0.05f, clear, disc(scene.measured ? 3 * band : band));
        depth = extendFrom(depth, clear);
    }

    step("behind the subject");
    // Depth edges outside the matte's area, each pixel's fragments from either side.
    DepthEdges edges = DepthEdges::find(guide, depth, 0.05f);
    step("depth edges");
    cv::Mat zones(working, CV_8U, cv::Scalar(plainZone));
    zones.setTo(edgeZone, edges.band);
    if (!matteArea.empty()) zones.setTo(matteZone, matteArea);
    scene.subjectDisparity = depth.clone();
    scene.behindDisparity = depth.clone();
    for (int y = 0; y < working.height; ++y) {
        const uchar *z = zones.ptr<uchar>(y);
        const float *d = depth.ptr<float>(y), *nearSide = edges.nearSide.ptr<float>(y), *farSide = edges.farSide.ptr<float>(y);
        float *s = scene.subjectDisparity.ptr<float>(y), *b = scene.behindDisparity.ptr<float>(y);
        for (int x = 0; x < working.width; ++x) {
            if (z[x] == matteZone) {
                s[x] = subjectPlane;
            } else if (z[x] == edgeZone) {
                // The pixel's own side keeps its own disparity; the other side's comes from across the edge.
                const bool nearer = d[x] > 0.5f * (nearSide[x] + farSide[x]);
                s[x] = nearer ? d[x] : nearSide[x];
                b[x] = nearer ? farSide[x] : d[x];
            }
        }
    }
    step("scene depth");
    scene.zones = zones;
    scene.edges = edges;
    cv::Mat shares = workingAlpha(scene);
    step("working alpha");
    if (!subject.empty() || cv::countNonZero(edges.band) > 0) estimateColours(guide, shares, scene.foregroundSmooth, scene.backgroundSmooth);
    step("edge colours");
    return scene;
}

SceneRows::SceneRows(const PortraitScene &scene)
    : colour(size_t(scene.size.width) * 3), alpha(size_t(scene.size.width)), subject(size_t(scene.size.width)), behind(size_t(scene.size.width)),
      scene(scene), subjectRows(scene.subjectDisparity, scene.size.width, scene.workingScale()),
      behindRows(scene.behindDisparity, scene.size.width, scene.workingScale()) {
    const int width = scene.size.width;
    const double toWorking = scene.workingScale();
    if (!scene.matte.empty()) matteRows = std::make_unique<LevelRows>(scene.matte, width, double(scene.matte.cols) / width);
    nearColourRows = std::make_unique<LevelRows>(scene.edges.nearColour, width, toWorking);
    farColourRows = std::make_unique<LevelRows>(scene.edges.farColour, width, toWorking);
    nearMaskRows = std::make_unique<LevelRows>(scene.edges.nearMask, width, toWorking);
    zoneColumn.resize(size_t(width));
    for (int x = 0; x < width; ++x) zoneColumn[size_t(x)] = std::min(scene.zones.cols - 1, int((x + 0.5) * toWorking));
}

void SceneRows::load(int row) {
    y = row;
    const int width = scene.size.width;
    photoRow(scene.photo, row, colour.data());
    subjectRows.row(row, subject.data(), scratch);
    behindRows.row(row, behind.data(), scratch);
    const uchar *zone = scene.zones.ptr<uchar>(std::min(scene.zones.rows - 1, int((row + 0.5) * scene.workingScale())));
    bool matteHere = false, edgeHere = false;
    for (int x = 0; x < scene.zones.cols; ++x) {
        matteHere |= zone[x] == matteZone;
        edgeHere |= zone[x] == edgeZone;
    }
    if (!matteHere && !edgeHere) {
        std::fill(alpha.begin(), alpha.end(), 1.0f);
        return;
    }
    if (matteHere && matteRows) {
        matteRow.resize(size_t(width));
        matteRows->row(row, matteRow.data(), scratch);
    }
    if (edgeHere) {
        nearColour.resize(size_t(width) * 3);
        farColour.resize(size_t(width) * 3);
        nearMask.resize(size_t(width));
        nearColourRows->row(row, nearColour.data(), scratch);
        farColourRows->row(row, farColour.data(), scratch);
        nearMaskRows->row(row, nearMask.data(), scratch);
    }
    for (int x = 0; x < width; ++x) {
        const uchar z = zone[zoneColumn[size_t(x)]];
        const size_t i = size_t(x);
        alpha[i] = z == plainZone ? 1.0f
                   : z == matteZone ? std::clamp(matteRows ? matteRow[i] : 1.0f, 0.0f, 1.0f)
                                    : nearShare(colour.data() + 3 * i, nearColour.data() + 3 * i, farColour.data() + 3 * i, nearMask[i]);
    }
}

void SceneRows::edgeColoursAt(int x, float *foreground, float *background) const {
    const float *pixel = colour.data() + 3 * x;
    const float a = alpha[size_t(x)];
    if (a <= 0 || a >= 1 || scene.foregroundSmooth.empty()) {
        for (int c = 0; c < 3; ++c) foreground[c] = background[c] = pixel[c];
        return;
    }
    float f[3], b[3];
    const double scale = double(scene.foregroundSmooth.cols) / scene.size.width;
    sampleLevel(scene.foregroundSmooth, scale, x, y, f);
    sampleLevel(scene.backgroundSmooth, scale, x, y, b);
    edgeColours(pixel, a, f, b, foreground, background);
}

} // namespace mbx
