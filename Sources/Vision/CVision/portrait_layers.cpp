// Depth of field rendered from a scene of fragments (portrait_scene.cpp).
//
// Each fragment is blurred by a disc whose radius follows its distance from
// the focal plane (BokehMe: radius = K |disparity - focus|). The radii are cut
// into layers (0, 1, 2, 3 px, then 1.42 times wider each) and a fragment is
// shared between the two layers its radius falls between, so the blur grows
// continuously with depth: a slanted table or a ground plane blurs smoothly,
// with no seam where one layer ends.
//
// Occlusion follows depth edges, not layers. Layers whose radii are close
// (neighbours) add up, as a continuous surface does; a layer covers what lies
// at least two layers behind it, as a nearer object covers a farther one.
// Three groups are composed in order: what lies behind the focal plane (its
// layers blurred on reduced copies, where a radius of 4-8 px is 2-4 level
// pixels), the sharp layers around the focal plane (full size), and what lies
// in front (reduced copies again). Where a group is transparent and there is
// nothing behind it (the background hidden by a sharp subject shows at the
// subject's soft edges; what a blurred foreground hid shows through its blur),
// what is behind is filled from what surrounds it (push-pull), never from the
// nearer group's own colours. Nothing inside the sharp region is ever filled:
// where the sharp layers cover a pixel, the photo's own fragments are kept.
//
// Highlights bloom as in BokehMe: blurred layers average colour^gamma and are
// brought back with 1/gamma per layer, before layers are composed.
#include "portrait_scene.hpp"
#include "level_rows.hpp"
#include "push_pull.hpp"
#include <algorithm>
#include <array>
#include <cmath>
#include <opencv2/imgproc.hpp>
#include <vector>

namespace mbx {

namespace {

constexpr float sharpLimit = 3.0f; // layers up to this radius are rendered at full size
constexpr float layerRatio = 1.42f;

/// The layers' signed blur radii, ascending (negative: behind the focal plane).
struct Layers {
    std::vector<float> centre;
    std::vector<float> inverseGap;
    std::vector<int> below;

    Layers(float lowest, float highest) {
        std::vector<float> behind{1, 2, 3}, front{1, 2, 3};
        while (behind.back() < -lowest) behind.push_back(behind.back() * layerRatio);
        while (front.back() < highest) front.push_back(front.back() * layerRatio);
        for (auto r = behind.rbegin(); r != behind.rend(); ++r) centre.push_back(-*r);
        centre.push_back(0);
        centre.insert(centre.end(), front.begin(), front.end());
        for (size_t k = 0; k + 1 < centre.size(); ++k) inverseGap.push_back(1 / (centre[k + 1] - centre[k]));
        // The layer below each radius, every eighth of a pixel (a search per fragment is too slow at 12 MP).
        const int steps = int(std::ceil((centre.back() - centre.front()) * 8)) + 1;
        below.resize(size_t(steps));
        int lower = 0;
        for (int i = 0; i < steps; ++i) {
            const float radius = centre.front() + float(i) / 8;
            while (lower + 2 < count() && centre[size_t(lower) + 1] <= radius) ++lower;
            below[size_t(i)] = lower;
        }
    }

    int count() const { return int(centre.size()); }

    /// The layer below a signed radius, and the share of the one above.
    inline void locate(float radius, int &lower, float &upperShare) const {
        if (radius <= centre.front()) {
            lower = 0;
            upperShare = 0;
            return;
        }
        if (radius >= centre.back()) {
            lower = count() - 2;
            upperShare = 1;
            return;
        }
        lower = below[std::min(below.size() - 1, size_t((radius - centre.front()) * 8))];
        if (radius >= centre[size_t(lower) + 1]) ++lower; // the table's step may straddle a centre
        upperShare = std::clamp((radius - centre[size_t(lower)]) * inverseGap[size_t(lower)], 0.0f, 1.0f);
    }

    /// The pyramid level a layer is blurred on: where its radius is 2-4 level pixels (0: full size).
    int level(int layer) const {
        const float radius = std::abs(centre[size_t(layer)]);
        return radius <= sharpLimit ? 0 : std::max(1, int(std::floor(std::log2(radius / 2))));
    }

    /// The full-size sharp class (radius 0, 1, 2 or 3) of a layer at level 0.
    int sharpClass(int layer) const { return int(std::lround(std::abs(centre[size_t(layer)]))); }
};

/// x^p for x in 0...1 from a table (pow per sample is too slow at 12 MP).
struct PowerTable {
    std::array<float, 4097> values{};
    explicit PowerTable(float power) {
        for (size_t i = 0; i < values.size(); ++i) values[i] = std::pow(float(i) / 4096, power);
    }
    float operator()(float x) const {
        const float position = std::clamp(x, 0.0f, 1.0f) * 4096;
        const int i = std::min(int(position), 4095);
        const float t = position - float(i);
        return values[size_t(i)] + t * (values[size_t(i) + 1] - values[size_t(i)]);
    }
};

/// One of a pixel's (at most two) fragments.
struct Fragment {
    float weight;
    float colour[3];
    float radius; // signed: > 0 in front of the focal plane
};

/// One full-size row of fragments, with each fragment's signed blur radius.
class FragmentRows {
  public:
    FragmentRows(const PortraitScene &scene, float focus, float sharpBand, float scale)
        : rows(scene), focus(focus), sharpBand(sharpBand), scale(scale) {}

    void load(int y) {
        rows.load(y);
        for (std::vector<float> *values : {&rows.subject, &rows.behind})
            for (float &d : *values) d = radiusOf(d);
    }

    /// A disparity's signed blur radius: none within the sharp band around the focal plane.
    float radiusOf(float disparity) const {
        const float offset = disparity - focus;
        return std::copysign(std::max(std::abs(offset) - sharpBand, 0.0f) * scale, offset);
    }

    /// The fragments of pixel x: the first's share alpha with its foreground colour and the
    /// subject's radius, the rest with the background colour and the radius behind.
    int fragments(int x, Fragment *out) const {
        const size_t i = size_t(x);
        const float *pixel = rows.colour.data() + 3 * i;
        const float a = rows.alpha[i], front = rows.subject[i], back = rows.behind[i];
        if (a >= 1 || (a > 0 && front == back)) {
            out[0] = Fragment{1, {pixel[0], pixel[1], pixel[2]}, front};
            return 1;
        }
        if (a <= 0) {
            out[0] = Fragment{1, {pixel[0], pixel[1], pixel[2]}, back};
            return 1;
        }
        out[0].weight = a;
        out[0].radius = front;
        out[1].weight = 1 - a;
        out[1].radius = back;
        rows.edgeColoursAt(x, out[0].colour, out[1].colour);
        return 2;
    }

    /// The row as read, its radii in place of its disparities.
    const SceneRows &scene() const { return rows; }

  private:
    SceneRows rows;
    float focus, sharpBand, scale;
};

/// Where each row of a premultiplied layer (CV_32FC4) has weight: its first and last such column
/// (first > last for an empty row).
std::vector<cv::Vec2i> rowExtents(const cv::Mat &layer) {
    std::vector<cv::Vec2i> extents(size_t(layer.rows), cv::Vec2i(layer.cols, -1));
    cv::parallel_for_(cv::Range(0, layer.rows), [&](const cv::Range &range) {
        for (int y = range.start; y < range.end; ++y) {
            const float *p = layer.ptr<float>(y);
            int first = layer.cols, last = -1;
            for (int x = 0; x < layer.cols; ++x)
                if (p[4 * x + 3] > 0) {
                    first = std::min(first, x);
                    last = x;
                }
            extents[size_t(y)] = cv::Vec2i(first, last);
        }
    });
    return extents;
}

/// Each pixel of a premultiplied layer (CV_32FC4) that a disc of `radius` level pixels around
/// it reaches weight from, replaced by the disc's mean: row by row from prefix sums (the disc's
/// edge anti-aliased), so a pixel costs O(radius). `prefix` is scratch memory, kept between
/// calls (a fresh buffer of this size costs more in page faults than the blur itself). Returns
/// false when the layer is empty.
bool discBlur(cv::Mat &layer, float radius, cv::Mat &prefix) {
    const int n = 4, cols = layer.cols, rows = layer.rows;
    const std::vector<cv::Vec2i> extents = rowExtents(layer);
    const int reach = int(std::ceil(radius));
    // Each output row's columns: the union of the rows its disc reaches, grown by the reach.
    std::vector<cv::Vec2i> span(size_t(rows), cv::Vec2i(cols, -1));
    bool any = false;
    for (int y = 0; y < rows; ++y) {
        int first = cols, last = -1;
        for (int yy = std::max(0, y - reach); yy <= std::min(rows - 1, y + reach); ++yy) {
            first = std::min(first, extents[size_t(yy)][0]);
            last = std::max(last, extents[size_t(yy)][1]);
        }
        if (last >= first) {
            span[size_t(y)] = cv::Vec2i(std::max(0, first - reach), std::min(cols - 1, last + reach));
            any = true;
        }
    }
    if (!any) return false;
    // Prefix sums of each row with weight (a source pixel is the difference of two of them).
    if (prefix.rows < rows || prefix.cols < (cols + 1) * n) prefix.create(rows, (cols + 1) * n, CV_32F);
    cv::parallel_for_(cv::Range(0, rows), [&](const cv::Range &range) {
        for (int y = range.start; y < range.end; ++y) {
            const cv::Vec2i e = extents[size_t(y)];
            if (e[1] < e[0]) continue;
            const float *src = layer.ptr<float>(y);
            float *p = prefix.ptr<float>(y);
            for (int c = 0; c < n; ++c) p[c] = 0;
            for (int x = 0; x < cols; ++x)
                for (int c = 0; c < n; ++c) p[(x + 1) * n + c] = p[x * n + c] + src[x * n + c];
        }
    });
    std::vector<float> halfWidth(size_t(2 * reach + 1));
    for (int dy = -reach; dy <= reach; ++dy)
        halfWidth[size_t(dy + reach)] = radius * radius > float(dy * dy) ? std::sqrt(radius * radius - float(dy * dy)) : 0;
    cv::parallel_for_(cv::Range(0, rows), [&](const cv::Range &range) {
        for (int y = range.start; y < range.end; ++y) {
            const cv::Vec2i columns = span[size_t(y)];
            float *o = layer.ptr<float>(y);
            if (columns[1] < columns[0]) continue;
            for (int x = columns[0]; x <= columns[1]; ++x) {
                float sum[4] = {0, 0, 0, 0}, covered = 0;
                for (int dy = -reach; dy <= reach; ++dy) {
                    const float half = halfWidth[size_t(dy + reach)];
                    if (half <= 0) continue;
                    // Rows beyond the image repeat its edge row (the disc stays whole).
                    const int yy = std::clamp(y + dy, 0, rows - 1);
                    const float a = std::clamp(x + 0.5f - half, 0.0f, float(cols)), b = std::clamp(x + 0.5f + half, 0.0f, float(cols));
                    if (b <= a) continue;
                    covered += b - a;
                    const cv::Vec2i e = extents[size_t(yy)];
                    if (e[1] < e[0]) continue;
                    const float *p = prefix.ptr<float>(yy);
                    const int ia = std::min(int(a), cols - 1), ib = std::min(int(b), cols - 1);
                    const float fa = a - float(ia), fb = b - float(ib);
                    for (int c = 0; c < n; ++c) {
                        const float sa = p[(ia + 1) * n + c] - p[ia * n + c], sb = p[(ib + 1) * n + c] - p[ib * n + c];
                        sum[c] += (p[ib * n + c] + fb * sb) - (p[ia * n + c] + fa * sa);
                    }
                }
                // Written into the layer: rows the disc still reads are the prefix's, not these.
                if (covered > 0)
                    for (int c = 0; c < n; ++c) o[x * n + c] = sum[c] / covered;
            }
        }
    });
    return true;
}

/// Level-1 size of a full size.
cv::Size halfSize(cv::Size size) { return cv::Size((size.width + 1) / 2, (size.height + 1) / 2); }

/// Each pixel's colour for what it lacks of weight (`image`: CV_32FC4, premultiplied colour and
/// weight): what surrounds it (push-pull), worked out on a copy half the size (a fill is smooth)
/// and enlarged. Returns CV_32FC3.
cv::Mat surroundings(const cv::Mat &image) {
    cv::Mat small, planes[4], colour, filled;
    cv::resize(image, small, halfSize(image.size()), 0, 0, cv::INTER_AREA);
    cv::split(small, planes);
    cv::merge(planes, 3, colour);
    cv::resize(pushPullFill(colour, planes[3], false), filled, image.size(), 0, 0, cv::INTER_LINEAR);
    return filled;
}

/// A blurred layer at its level: only the rows it can reach are kept (most layers cover a band
/// of the photo, and untouched memory costs nothing).
struct Band {
    cv::Mat image; // CV_32FC4, premultiplied colour and weight, for rows top ... top + rows - 1
    int top = 0;
    cv::Size level; // the whole level's size
};

/// Blurred layers (each at its own level), nearest first, composed into `size` (level 1):
/// neighbouring layers add up, a layer covers those two or more behind it. Each layer is added
/// at its own level (what covers it carried there), and the sums enlarged once. With
/// `extendHidden`, a layer also goes on under what covers it, from what surrounds it there (a
/// chair behind a blurred head shows through the head's blurred edge as a chair, not as the wall
/// behind both). Returns CV_32FC4: premultiplied colour and weight.
cv::Mat compose(std::vector<Band> &layersNearestFirst, cv::Size size, bool extendHidden) {
    std::vector<cv::Mat> sums; // per level size: CV_32FC4, colour and weight
    cv::Mat open;              // what the layers two or more in front leave uncovered, at the current level
    Band previous;             // the last layer's weight (not yet in `open`), in its band
    // Applies the previous layer to `open`: it now covers what lies two or more behind it.
    auto coverWithPrevious = [&]() {
        if (previous.image.empty()) return;
        cv::parallel_for_(cv::Range(0, previous.image.rows), [&](const cv::Range &range) {
            for (int y = range.start; y < range.end; ++y) {
                const float *w = previous.image.ptr<float>(y);
                float *o = open.ptr<float>(previous.top + y);
                for (int x = 0; x < open.cols; ++x) o[x] *= 1 - std::min(w[x], 1.0f);
            }
        });
        previous = Band();
    };
    for (Band &layer : layersNearestFirst) {
        if (layer.image.empty()) {
            coverWithPrevious();
            continue;
        }

        const cv::Size here = layer.level;
        if (open.empty()) open = cv::Mat(here, CV_32F, cv::Scalar(1));
        if (open.size() != here) {
            // A new level: what covers, and the last layer's weight, carried to it.
            const int interpolation = here.width < open.cols ? cv::INTER_AREA : cv::INTER_LINEAR;
            cv::resize(open, open, here, 0, 0, interpolation);
            if (!previous.image.empty()) {
                cv::Mat whole = cv::Mat::zeros(previous.level, CV_32F);
                previous.image.copyTo(whole.rowRange(previous.top, previous.top + previous.image.rows));
                cv::resize(whole, previous.image, here, 0, 0, interpolation);
                previous.top = 0;
                previous.level = here;
            }
        }
        cv::Mat *sum = nullptr;
        for (cv::Mat &candidate : sums)
            if (candidate.size() == here) sum = &candidate;
        if (!sum) {
            sums.push_back(cv::Mat::zeros(here, CV_32FC4));
            sum = &sums.back();
        }
        const cv::Mat &image = layer.image;
        const cv::Mat openHere = open.rowRange(layer.top, layer.top + image.rows);
        // The layer carried under what covers it: its surroundings' colour, as far as it reaches
        // (its weight near by, on a copy a third the size), where something covers it.
        cv::Mat extension, nearby;
        if (extendHidden) {
            cv::Mat weightOnly, reduced, openReduced;
            cv::extractChannel(image, weightOnly, 3);
            const cv::Size third(std::max(1, image.cols / 3), std::max(1, image.rows / 3));
            cv::resize(weightOnly, reduced, third, 0, 0, cv::INTER_AREA);
            cv::resize(openHere, openReduced, third, 0, 0, cv::INTER_AREA);
            double overlap = 0;
            cv::minMaxLoc(reduced.mul(0.7f - openReduced), nullptr, &overlap);
            if (overlap > 0.01) {
                cv::resize(reduced, nearby, image.size(), 0, 0, cv::INTER_LINEAR);
                cv::Mat small;
                cv::resize(image, small, cv::Size(std::max(1, image.cols / 4), std::max(1, image.rows / 4)), 0, 0, cv::INTER_AREA);
                cv::resize(surroundings(small), extension, image.size(), 0, 0, cv::INTER_LINEAR);
            }
        }
        Band weight{cv::Mat(image.size(), CV_32F), layer.top, here};
        cv::parallel_for_(cv::Range(0, image.rows), [&](const cv::Range &range) {
            for (int y = range.start; y < range.end; ++y) {
                const float *o = openHere.ptr<float>(y), *l = image.ptr<float>(y);
                float *acc = sum->ptr<float>(layer.top + y), *w = weight.image.ptr<float>(y);
                const float *e = extension.empty() ? nullptr : extension.ptr<float>(y), *g = nearby.empty() ? nullptr : nearby.ptr<float>(y);
                for (int x = 0; x < image.cols; ++x) {
                    const float visible = o[x];
                    const float *p = l + 4 * x;
                    float *a = acc + 4 * x;
                    float under = 0; // how much of the layer goes on under what covers it here
                    // Only inside what covers it (its blurred weight past 0.3, fully past 0.6): its blur
                    // outside its own outline shows what really lies behind there.
                    if (e) under = (1 - std::min(p[3], 1.0f)) * std::min(1.0f, 2 * g[x]) * std::clamp((0.7f - visible) / 0.3f, 0.0f, 1.0f);
                    for (int k = 0; k < 3; ++k) a[k] += visible * (p[k] + under * (e ? e[3 * x + k] : 0.0f));
                    a[3] += visible * (p[3] + under);
                    w[x] = p[3] + under;
                }
            }
        });
        coverWithPrevious();
        previous = weight;
        layer.image.release();
    }
    // The sums enlarged level by level, the smallest first, each added to the next larger one.
    std::sort(sums.begin(), sums.end(), [](const cv::Mat &a, const cv::Mat &b) { return a.cols < b.cols; });
    cv::Mat total;
    for (cv::Mat &sum : sums) {
        if (!total.empty()) {
            cv::Mat enlarged;
            cv::resize(total, enlarged, sum.size(), 0, 0, cv::INTER_LINEAR);
            sum += enlarged;
        }
        total = sum;
    }
    if (total.empty()) return cv::Mat::zeros(size, CV_32FC4);
    if (total.size() != size) {
        cv::Mat enlarged;
        cv::resize(total, enlarged, size, 0, 0, cv::INTER_LINEAR);
        total = enlarged;
    }
    // Neighbouring layers blurred by different discs overlap by more than one where a surface
    // crosses from one to the next: there the group is whole, and its colour their weighted mean
    // (left as a sum, a depth step on a plain wall would show as a bright line).
    cv::parallel_for_(cv::Range(0, total.rows), [&](const cv::Range &range) {
        for (int y = range.start; y < range.end; ++y) {
            float *p = total.ptr<float>(y);
            for (int x = 0; x < total.cols; ++x) {
                float *q = p + 4 * x;
                if (q[3] <= 1) continue;
                const float inverse = 1 / q[3];
                for (int c = 0; c < 4; ++c) q[c] *= inverse;
            }
        }
    });
    return total;
}


/// One depth-of-field render: the layers the scene's radii reach, and the steps that make them,
/// in order (each a method, sharing what the steps before it made).
class DepthOfField {
  public:
    DepthOfField(const PortraitScene &scene, float focus, float sharpBand, float scale, float gamma)
        : scene(scene), size(scene.size), half(halfSize(scene.size)), focus(focus), sharpBand(sharpBand), scale(scale),
          radii(scene, focus, sharpBand, scale), layers(reach(scene, radii)), toPower(gamma), fromPower(1 / gamma) {
        levels.resize(size_t(layers.count()));
        for (int k = 0; k < layers.count(); ++k) {
            levels[size_t(k)] = layers.level(k);
            deepest = std::max(deepest, levels[size_t(k)]);
        }
    }

    void render(const RowWriter &write, StepClock &step) {
        allocateLayers();
        gather();
        step("layers gathered");
        blurLayers();
        step("layers blurred");
        composeGroups();
        step("groups composed");
        fillHidden();
        step("fills");
        composeFullSize(write);
        step("sharp layers, composite");
    }

  private:
    /// The layers the radii reach (bilinear enlargement never leaves the working-size extremes).
    static Layers reach(const PortraitScene &scene, const FragmentRows &radii) {
        double low1, high1, low2, high2;
        cv::minMaxLoc(scene.subjectDisparity, &low1, &high1);
        cv::minMaxLoc(scene.behindDisparity, &low2, &high2);
        return Layers(std::min(radii.radiusOf(float(std::min(low1, low2))), 0.0f), std::max(radii.radiusOf(float(std::max(high1, high2))), 0.0f));
    }

    /// Each blurred layer, allocated over the rows it can reach only (with room for its disc),
    /// and the level-1 copy of the sharp layers.
    void allocateLayers() {
        // The full-size rows each layer can reach, from the working-size disparities (a full-size
        // row is read from the two working rows around it).
        std::vector<int> firstRow(size_t(layers.count()), size.height), lastRow(size_t(layers.count()), -1);
        const double toWorking = scene.workingScale();
        for (int r = 0; r < scene.subjectDisparity.rows; ++r) {
            double low = 0, high = 0, low2 = 0, high2 = 0;
            cv::minMaxLoc(scene.subjectDisparity.row(r), &low, &high);
            cv::minMaxLoc(scene.behindDisparity.row(r), &low2, &high2);
            int from, to;
            float unused;
            layers.locate(radii.radiusOf(float(std::min(low, low2))), from, unused);
            layers.locate(radii.radiusOf(float(std::max(high, high2))), to, unused);
            const int y0 = std::max(0, int(std::floor((r - 1) / toWorking)) - 1);
            const int y1 = std::min(size.height - 1, int(std::ceil((r + 2) / toWorking)) + 1);
            for (int k = from; k <= std::min(to + 1, layers.count() - 1); ++k) {
                firstRow[size_t(k)] = std::min(firstRow[size_t(k)], y0);
                lastRow[size_t(k)] = std::max(lastRow[size_t(k)], y1);
            }
        }
        // The blurred layers' fragments are area-averaged into their levels, in colour^gamma; the
        // sharp layers' into one level-1 copy (for filling what they hide).
        levelled.resize(size_t(layers.count()));
        for (int k = 0; k < layers.count(); ++k) {
            const int level = levels[size_t(k)];
            if (level == 0 || lastRow[size_t(k)] < firstRow[size_t(k)]) continue;
            cv::Size s = size;
            for (int i = 0; i < level; ++i) s = halfSize(s);
            // Its rows at its level, with room for its disc to spread.
            const int reach = int(std::ceil(std::abs(layers.centre[size_t(k)]) / float(1 << level))) + 2;
            const int top = std::max(0, (firstRow[size_t(k)] >> level) - reach);
            const int bottom = std::min(s.height - 1, (lastRow[size_t(k)] >> level) + reach);
            levelled[size_t(k)] = Band{cv::Mat::zeros(bottom - top + 1, s.width, CV_32FC4), top, s};
        }
        sharpHalf = cv::Mat::zeros(half, CV_32FC4);
        frontOwn = cv::Mat::zeros(half, CV_32F);
        behindOwn = cv::Mat::zeros(half, CV_32F);
    }

    /// Pass 1, full size.
    void gather() {
        // Gathered a 2x2 block of full-size pixels at a time (a level-1 pixel): each of its two
        // fragments' weights, colours (and colour^gamma, per pixel so that bright points still bloom)
        // and radii summed over the block, then spread over the layers once. The radii are smooth
        // (read from the working size), so a block's mean radius is each of its pixels' own.
        const int block = 1 << (deepest - 1); // level-1 rows that share a pixel at the deepest level go to one thread
        const int blocks = (half.height + block - 1) / block;
        const int chunks = std::max(1, std::min(blocks, 4 * cv::getNumThreads()));
        cv::parallel_for_(cv::Range(0, chunks), [&](const cv::Range &range) {
            FragmentRows rows[2] = {FragmentRows(scene, focus, sharpBand, scale), FragmentRows(scene, focus, sharpBand, scale)};
            std::vector<float *> targets(size_t(layers.count()));
            const int first = range.start * blocks / chunks * block, last = std::min(half.height, range.end * blocks / chunks * block);
            for (int y = first; y < last; ++y) {
                const int pairRows = std::min(2, size.height - 2 * y);
                for (int r = 0; r < pairRows; ++r) rows[r].load(2 * y + r);
                for (int k = 0; k < layers.count(); ++k) {
                    Band &band = levelled[size_t(k)];
                    const int levelRow = (y >> (levels[size_t(k)] - 1)) - band.top;
                    targets[size_t(k)] = levels[size_t(k)] == 0 ? sharpHalf.ptr<float>(y)
                                         : band.image.empty() || levelRow < 0 || levelRow >= band.image.rows ? nullptr
                                                                                                         : band.image.ptr<float>(levelRow);
                }
                for (int x = 0; x < half.width; ++x) {
                    // Per fragment slot (0: the subject's or near side's, 1: what lies behind it).
                    float weight[2] = {0, 0}, radius[2] = {0, 0}, linear[2][3] = {}, powered[2][3] = {};
                    for (int r = 0; r < pairRows; ++r) {
                        const SceneRows &row = rows[r].scene();
                        for (int xx = 2 * x; xx < std::min(2 * x + 2, size.width); ++xx) {
                            const size_t i = size_t(xx);
                            const float a = row.alpha[i];
                            float colours[2][3];
                            row.edgeColoursAt(xx, colours[0], colours[1]);
                            const float shares[2] = {a, 1 - a}, radii[2] = {row.subject[i], row.behind[i]};
                            for (int f = 0; f < 2; ++f) {
                                const float w = shares[f];
                                if (w <= 0) continue;
                                weight[f] += w;
                                radius[f] += w * radii[f];
                                for (int c = 0; c < 3; ++c) {
                                    linear[f][c] += w * colours[f][c];
                                    powered[f][c] += w * toPower(colours[f][c]);
                                }
                            }
                        }
                    }
                    for (int f = 0; f < 2; ++f) {
                        if (weight[f] <= 0) continue;
                        int lower;
                        float upperShare;
                        layers.locate(radius[f] / weight[f], lower, upperShare);
                        for (int side = 0; side < 2; ++side) {
                            const int k = lower + side;
                            const float part = side ? upperShare : 1 - upperShare;
                            if (part <= 0) continue;
                            const int level = levels[size_t(k)];
                            // How much of this level-1 pixel is a surface of the group in front or behind.
                            if (layers.centre[size_t(k)] > sharpLimit) frontOwn.ptr<float>(y)[x] += 0.25f * part * weight[f];
                            if (layers.centre[size_t(k)] < -sharpLimit) behindOwn.ptr<float>(y)[x] += 0.25f * part * weight[f];
                            const float share = 0.25f * part / float(level > 1 ? 1 << (2 * (level - 1)) : 1);
                            float *p = targets[size_t(k)];
                            if (!p) continue;
                            p += 4 * (level > 1 ? x >> (level - 1) : x);
                            const float *colour = level == 0 ? linear[f] : powered[f];
                            for (int c = 0; c < 3; ++c) p[c] += share * colour[c];
                            p[3] += share * weight[f];
                        }
                    }
                }
            }
        });
    }

    /// Each blurred layer: its disc, back from colour^gamma (premultiplied).
    void blurLayers() {
        // Each blurred layer: its disc, back from colour^gamma (premultiplied).
        cv::Mat prefix;
        for (int k = 0; k < layers.count(); ++k) {
            cv::Mat &layer = levelled[size_t(k)].image;
            if (layer.empty()) continue;
            const float radius = std::abs(layers.centre[size_t(k)]) / float(1 << levels[size_t(k)]);
            if (!discBlur(layer, radius, prefix)) {
                layer.release();
                continue;
            }
            cv::parallel_for_(cv::Range(0, layer.rows), [&](const cv::Range &range) {
                for (int y = range.start; y < range.end; ++y) {
                    float *p = layer.ptr<float>(y);
                    for (int x = 0; x < layer.cols; ++x) {
                        float *q = p + 4 * x;
                        if (q[3] <= 1e-6f) {
                            q[0] = q[1] = q[2] = q[3] = 0;
                            continue;
                        }
                        const float inverse = 1 / q[3];
                        for (int c = 0; c < 3; ++c) q[c] = q[3] * fromPower(q[c] * inverse);
                    }
                }
            });
        }
        prefix.release();
    }

    /// The groups behind and in front, composed at level 1.
    void composeGroups() {
        // The groups behind and in front, composed at level 1.
        std::vector<Band> behindLayers, frontLayers;
        for (int k = layers.count() - 1; k >= 0; --k)
            if (layers.centre[size_t(k)] > sharpLimit) frontLayers.push_back(levelled[size_t(k)]);
        for (int k = 0; k < layers.count(); ++k)
            if (layers.centre[size_t(k)] < -sharpLimit) behindLayers.insert(behindLayers.begin(), levelled[size_t(k)]);
        levelled.clear();
        // CV_32FC4: colour, weight. What lies behind is filled where the sharp layers stand, below.
        behind = compose(behindLayers, half, false);
        front = compose(frontLayers, half, true);
        opaqueWhereOwn(behind, behindOwn);
        opaqueWhereOwn(front, frontOwn);
        // Where a surface behind the focal plane lies within a sharp layer's reach (4 px): there the
        // sharp layers' soft edges show it; elsewhere they meet only nearer surfaces of their own.
        cv::dilate(behindOwn > 0.01f, behindNear, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(5, 5)));
        behindOwn.release();
        frontOwn.release();
    }

    /// A group is at least as opaque at a pixel as the pixel's own surface is of that group: where
    /// a blurred surface's layers meet inside it (a slanted crest, a chair's seat), one covering
    /// the next, their weights fall short of whole, and what showed through was the fill from
    /// around the group (a light seam, the floor through a chair). Outside its surfaces a group
    /// stays as its blur made it: a blurred edge still spreads softly over what lies behind.
    static void opaqueWhereOwn(cv::Mat &group, const cv::Mat &own) {
        cv::parallel_for_(cv::Range(0, group.rows), [&](const cv::Range &range) {
            for (int y = range.start; y < range.end; ++y) {
                float *g = group.ptr<float>(y);
                const float *o = own.ptr<float>(y);
                for (int x = 0; x < group.cols; ++x) {
                    float *q = g + 4 * x;
                    const float floor = std::min(o[x], 1.0f);
                    if (q[3] <= 1e-6f || q[3] >= floor) continue;
                    const float gain = floor / q[3];
                    for (int c = 0; c < 4; ++c) q[c] *= gain;
                }
            }
        });
    }

    /// What the sharp layers hide of the group behind, filled from around it where they stand;
    /// what the front group hides of both, filled from around it; and where no sharp layer reaches,
    /// the whole composite at level 1.
    void fillHidden() {
        // What the sharp layers hide of the group behind, filled from around it where they stand;
        // what the front group hides of both, filled from around it.
        cv::Mat presence(half, CV_32F), middle(half, CV_32FC4);
        cv::Mat sharpWeight(half, CV_32F);
        cv::extractChannel(sharpHalf, sharpWeight, 3);
        cv::dilate(sharpWeight, presence, cv::Mat());
        // (Nothing behind at all, when the focus is on the farthest plane: nothing to fill from.)
        const bool anyBehind = cv::sum(behind)[3] > 0;
        cv::Mat behindAround = anyBehind ? surroundings(behind) : cv::Mat();
        cv::parallel_for_(cv::Range(0, half.height), [&](const cv::Range &range) {
            for (int y = range.start; y < range.end; ++y) {
                const float *sh = sharpHalf.ptr<float>(y), *p = presence.ptr<float>(y);
                const float *around = anyBehind ? behindAround.ptr<float>(y) : nullptr;
                float *b = behind.ptr<float>(y), *m = middle.ptr<float>(y);
                for (int x = 0; x < half.width; ++x) {
                    float *bx = b + 4 * x;
                    if (around) {
                        const float gap = std::clamp(1 - bx[3], 0.0f, 1.0f) * std::min(2 * p[x], 1.0f);
                        for (int c = 0; c < 3; ++c) bx[c] += gap * around[3 * x + c];
                        bx[3] += gap;
                    }
                    const float *sx = sh + 4 * x;
                    float *mx = m + 4 * x;
                    if (sx[3] >= 1) {
                        for (int c = 0; c < 3; ++c) mx[c] = sx[c] / sx[3];
                        mx[3] = 1;
                    } else {
                        for (int c = 0; c < 3; ++c) mx[c] = sx[c] + (1 - sx[3]) * bx[c];
                        mx[3] = sx[3] + (1 - sx[3]) * bx[3];
                    }
                }
            }
        });
        behindAround.release();
        sharpHalf.release();
        hidden = surroundings(middle); // what the front group hides
        middle.release();
        // Where no sharp layer reaches, the whole composite is at level 1: the front over what is behind.
        coarse.create(half, CV_32FC3);
        cv::parallel_for_(cv::Range(0, half.height), [&](const cv::Range &range) {
            for (int y = range.start; y < range.end; ++y) {
                const float *b = behind.ptr<float>(y), *h = hidden.ptr<float>(y), *f = front.ptr<float>(y);
                float *o = coarse.ptr<float>(y);
                for (int x = 0; x < half.width; ++x) {
                    const float *bx = b + 4 * x, *fx = f + 4 * x;
                    const float rest = std::clamp(1 - bx[3], 0.0f, 1.0f);
                    for (int c = 0; c < 3; ++c) {
                        const float back = bx[c] + rest * h[3 * x + c];
                        o[3 * x + c] = fx[3] >= 1 ? fx[c] / fx[3] : fx[c] + (1 - fx[3]) * back;
                    }
                }
            }
        });
        {
            cv::Mat frontWeight;
            cv::extractChannel(front, frontWeight, 3);
            cv::dilate(frontWeight > 0, frontNear, cv::Mat());
        }
    }

    /// Pass 2, full size, in strips: the sharp layers blurred by their small radii and the groups
    /// composed over and under them; each finished row goes to `write`.
    void composeFullSize(const RowWriter &write) {
        // Where a sharp layer can be at all (working size, grown by the reach of a full-size row's
        // bilinear reading): elsewhere pass 2 takes the level-1 composite without looking at fragments.
        cv::Mat sharpPossible(scene.subjectDisparity.size(), CV_8U);
        const float firstBlurred = layers.centre[size_t(layers.count() - 1)] > sharpLimit ? sharpLimit * layerRatio : sharpLimit + 1;
        for (int y = 0; y < sharpPossible.rows; ++y) {
            const float *a = scene.subjectDisparity.ptr<float>(y), *b = scene.behindDisparity.ptr<float>(y);
            uchar *m = sharpPossible.ptr<uchar>(y);
            for (int x = 0; x < sharpPossible.cols; ++x)
                m[x] = std::min(std::abs(radii.radiusOf(a[x])), std::abs(radii.radiusOf(b[x]))) < firstBlurred ? 255 : 0;
        }
        cv::dilate(sharpPossible, sharpPossible, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(5, 5)));
        const double toWorking = scene.workingScale();
        std::vector<int> workingColumn(size_t(size.width));
        for (int x = 0; x < size.width; ++x) workingColumn[size_t(x)] = std::min(sharpPossible.cols - 1, int((x + 0.5) * toWorking));

        // Pass 2, full size, in strips: the sharp layers blurred by their small radii and the groups
        // composed over and under them; each finished row goes to `write`. Each thread keeps its
        // strip buffers (fresh ones per strip would cost more in page faults than the work).
        const int stripRows = 64, margin = 5;
        const int strips = (size.height + stripRows - 1) / stripRows;
        const int stripChunks = std::max(1, std::min(strips, 2 * cv::getNumThreads()));
        const LevelRows coarseRows(coarse, size.width, 0.5), behindRows(behind, size.width, 0.5), frontRows(front, size.width, 0.5),
            hiddenRows(hidden, size.width, 0.5);
        cv::parallel_for_(cv::Range(0, stripChunks), [&](const cv::Range &range) {
            Fragment fragments[2];
            FragmentRows row(scene, focus, sharpBand, scale);
            std::vector<float> scratch, coarseRow(size_t(size.width) * 3), behindRow(size_t(size.width) * 4), frontRow(size_t(size.width) * 4),
                hiddenRow(size_t(size.width) * 3), out(size_t(size.width) * 3);
            const int bufferRows = stripRows + 2 * margin;
            cv::Mat still(bufferRows, size.width, CV_32FC4); // radius 0: every pixel written
            cv::Mat own(bufferRows, size.width, CV_32FC2);   // how much of each pixel is a sharp surface, one behind
            std::array<cv::Mat, 3> blurred;                   // radius 1, 2, 3: zeroed where used
            std::array<cv::Vec2i, 3> used;                    // each one's columns in this strip
            for (int chunk = range.start; chunk < range.end; ++chunk) {
                for (int strip = chunk * strips / stripChunks; strip < (chunk + 1) * strips / stripChunks; ++strip) {
                    const int y0 = strip * stripRows, y1 = std::min(size.height, y0 + stripRows);
                    const int e0 = std::max(0, y0 - margin), e1 = std::min(size.height, y1 + margin);
                    used.fill(cv::Vec2i(size.width, -1));
                    for (int y = e0; y < e1; ++y) {
                        float *base = still.ptr<float>(y - e0), *owned = own.ptr<float>(y - e0);
                        std::fill(base, base + 4 * size.width, 0.0f);
                        std::fill(owned, owned + 2 * size.width, 0.0f);
                        const uchar *possible = sharpPossible.ptr<uchar>(std::min(sharpPossible.rows - 1, int((y + 0.5) * toWorking)));
                        bool any = false;
                        for (int c = 0; c < sharpPossible.cols && !any; ++c) any = possible[c] != 0;
                        if (!any) continue;
                        row.load(y);
                        for (int x = 0; x < size.width; ++x) {
                            if (!possible[workingColumn[size_t(x)]]) continue;
                            float *b = base + 4 * x;
                            const int n = row.fragments(x, fragments);
                            for (int f = 0; f < n; ++f) {
                                int lower;
                                float upperShare;
                                layers.locate(fragments[f].radius, lower, upperShare);
                                for (int side = 0; side < 2; ++side) {
                                    const int k = lower + side;
                                    const float w = fragments[f].weight * (side ? upperShare : 1 - upperShare);
                                    if (w > 0 && levels[size_t(k)] == 0) owned[2 * x] += w;
                                    if (w > 0 && layers.centre[size_t(k)] < -sharpLimit) owned[2 * x + 1] += w;
                                    if (w <= 0 || levels[size_t(k)] != 0) continue;
                                    const int sharpClass = layers.sharpClass(k);
                                    float *p = b;
                                    if (sharpClass > 0) {
                                        cv::Mat &target = blurred[size_t(sharpClass - 1)];
                                        cv::Vec2i &columns = used[size_t(sharpClass - 1)];
                                        if (target.empty()) target = cv::Mat::zeros(bufferRows, size.width, CV_32FC4);
                                        columns = cv::Vec2i(std::min(columns[0], x), std::max(columns[1], x));
                                        p = target.ptr<float>(y - e0) + 4 * x;
                                    }
                                    for (int c = 0; c < 3; ++c) p[c] += w * fragments[f].colour[c];
                                    p[3] += w;
                                }
                            }
                        }
                    }
                    // A disc this small is a Gaussian to the eye: sigma = radius / 2 (the disc's own spread).
                    for (size_t r = 0; r < blurred.size(); ++r) {
                        const cv::Vec2i columns = used[r];
                        if (columns[1] < columns[0]) continue;
                        const double sigma = double(r + 1) / 2;
                        const int reach = int(std::ceil(3 * sigma)) + 1;
                        const int left = std::max(0, columns[0] - reach), right = std::min(size.width, columns[1] + 1 + reach);
                        const cv::Rect area(left, 0, right - left, e1 - e0);
                        cv::Mat smooth;
                        cv::GaussianBlur(blurred[r](area), smooth, cv::Size(), sigma, sigma, cv::BORDER_REFLECT | cv::BORDER_ISOLATED);
                        cv::Mat target = still(area);
                        target += smooth;
                        blurred[r](area).setTo(0);
                    }
                    for (int y = y0; y < y1; ++y) {
                        const float *s = still.ptr<float>(y - e0), *owned = own.ptr<float>(y - e0);
                        const uchar *nearFront = frontNear.ptr<uchar>(std::min(half.height - 1, y >> 1));
                        const uchar *nearBehind = behindNear.ptr<uchar>(std::min(half.height - 1, y >> 1));
                        bool coarseRead = false, aroundRead = false;
                        for (int x = 0; x < size.width; ++x) {
                            float *o = out.data() + 3 * x;
                            const float weight = s[4 * x + 3];
                            if (weight <= 1e-6f) {
                                if (!coarseRead) {
                                    coarseRows.row(y, coarseRow.data(), scratch);
                                    coarseRead = true;
                                }
                                for (int c = 0; c < 3; ++c) o[c] = coarseRow[size_t(3 * x + c)];
                                continue;
                            }
                            if (weight >= 1 && !nearFront[std::min(half.width - 1, x >> 1)]) {
                                for (int c = 0; c < 3; ++c) o[c] = s[4 * x + c] / weight;
                                continue;
                            }
                            if (!aroundRead) {
                                behindRows.row(y, behindRow.data(), scratch);
                                frontRows.row(y, frontRow.data(), scratch);
                                hiddenRows.row(y, hiddenRow.data(), scratch);
                                aroundRead = true;
                            }
                            const float *b = behindRow.data() + 4 * x, *f = frontRow.data() + 4 * x, *h = hiddenRow.data() + 3 * x;
                            // Where no surface behind is near, the sharp layers are as opaque as the pixel's
                            // own sharp surface: their soft edge meets a nearer surface of their own (a
                            // slanted crest crossing into the front group), which adds to it, and what lies
                            // behind the focal plane does not show between them.
                            const float ownSharp = owned[2 * x], ownBehind = owned[2 * x + 1];
                            const float floor = nearBehind[std::min(half.width - 1, x >> 1)] || ownSharp + ownBehind <= 1e-6f
                                                    ? 0.0f : ownSharp / (ownSharp + ownBehind);
                            const float gain = weight < floor ? floor / weight : 1.0f;
                            const float sharpWeight = weight * gain;
                            float m[3], mw;
                            if (sharpWeight >= 1) {
                                for (int c = 0; c < 3; ++c) m[c] = s[4 * x + c] / weight;
                                mw = 1;
                            } else {
                                for (int c = 0; c < 3; ++c) m[c] = gain * s[4 * x + c] + (1 - sharpWeight) * b[c];
                                mw = sharpWeight + (1 - sharpWeight) * b[3];
                            }
                            const float rest = std::clamp(1 - mw, 0.0f, 1.0f);
                            for (int c = 0; c < 3; ++c) {
                                const float behindFront = m[c] + rest * h[c];
                                o[c] = f[3] >= 1 ? f[c] / f[3] : f[c] + (1 - f[3]) * behindFront;
                            }
                        }
                        write(y, out.data());
                    }
                }
            }
        });
    }

    const PortraitScene &scene;
    const cv::Size size, half;
    const float focus, sharpBand, scale;
    const FragmentRows radii;
    const Layers layers;
    const PowerTable toPower, fromPower;
    std::vector<int> levels;
    int deepest = 1;
    std::vector<Band> levelled; // the blurred layers at their levels
    cv::Mat sharpHalf;          // the sharp layers' fragments at level 1 (CV_32FC4)
    cv::Mat frontOwn, behindOwn; // how much of each level-1 pixel is a surface of the group in front, behind
    cv::Mat behindNear;          // level-1 pixels a surface behind the focal plane is within 4 px of (CV_8U)
    cv::Mat behind, front;      // the groups at level 1 (CV_32FC4: colour, weight)
    cv::Mat hidden;             // what the front group hides (CV_32FC3)
    cv::Mat coarse;             // the composite where no sharp layer reaches (CV_32FC3)
    cv::Mat frontNear;          // level-1 pixels a front layer reaches
};

} // namespace

void renderDepthOfField(const PortraitScene &scene, float focus, float sharpBand, float scale, float gamma, const RowWriter &write, StepClock &step) {
    DepthOfField(scene, focus, sharpBand, scale, gamma).render(write, step);
}

void subjectLayer(const PortraitScene &scene, float focus, const SubjectRowWriter &write) {
    // With a matte: the matte's fragment. Otherwise each fragment at the focal plane or in front
    // of it, fading out over the 0.06 of the disparity range from 0.1 behind it.
    const float start = focus - 0.1f, width = 0.06f;
    const double toWorking = scene.workingScale();
    cv::parallel_for_(cv::Range(0, scene.size.height), [&](const cv::Range &range) {
        SceneRows rows(scene);
        std::vector<float> colour(size_t(scene.size.width) * 3), share(size_t(scene.size.width));
        float foreground[3], background[3];
        for (int y = range.start; y < range.end; ++y) {
            rows.load(y);
            const uchar *zone = scene.zones.ptr<uchar>(std::min(scene.zones.rows - 1, int((y + 0.5) * toWorking)));
            for (int x = 0; x < scene.size.width; ++x) {
                const size_t i = size_t(x);
                float front, back;
                if (scene.hasMatte) {
                    front = zone[std::min(scene.zones.cols - 1, int((x + 0.5) * toWorking))] == 1 ? 1.0f : 0.0f;
                    back = 0;
                } else {
                    front = std::clamp((rows.subject[i] - start) / width, 0.0f, 1.0f);
                    back = std::clamp((rows.behind[i] - start) / width, 0.0f, 1.0f);
                }
                rows.edgeColoursAt(x, foreground, background);
                const float a = rows.alpha[i], af = a * front, ab = (1 - a) * back;
                share[i] = af + ab;
                for (int k = 0; k < 3; ++k) colour[3 * i + k] = af * foreground[k] + ab * background[k];
            }
            write(y, colour.data(), share.data());
        }
    });
}

} // namespace mbx
