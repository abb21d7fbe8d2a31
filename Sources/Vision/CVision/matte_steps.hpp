// The shared steps of the portrait and semantic mattes: an upright working
// frame, the face in it, the person around the face and soft edges.
#pragma once
#include "mbx_vision.h"
#include <opencv2/core.hpp>
#include <string>
#include <vector>

namespace mbx {

/// The photo upright and scaled to the working size its effort asks for,
/// with the factor from stored pixels to working pixels.
struct WorkingFrame {
    cv::Mat colour; // 8-bit BGR, upright
    cv::Size smallStoredSize; // the scaled photo before it was turned upright
    int orientation = 1;
    double scale = 1;

    static WorkingFrame make(const mbx_cv_image &image, const mbx_cv_matte_options &options);
    /// The photo at `scale` of its stored size (at most 1), upright.
    static WorkingFrame atScale(const mbx_cv_image &image, int orientation, double scale);
    /// A face rectangle in stored pixels, in this frame's coordinates.
    cv::Rect toWorking(const mbx_cv_rect &face) const;
    /// A rectangle of this frame in stored pixels.
    mbx_cv_rect toStored(const cv::Rect &rect) const;
};

/// A face the neural detector found: its box, how sure it is (0...1) and
/// five landmarks, in the image's pixels.
struct DetectedFace {
    cv::Rect2f box;
    float score = 0;
    cv::Point2f leftEye, rightEye, nose, mouthLeft, mouthRight; // left and right as seen in the image
};

/// Faces CenterFace finds in an upright 8-bit BGR image, surest first.
std::vector<DetectedFace> neuralFaces(const cv::Mat &colour, const std::string &modelPath, double threshold);

/// A face as the mattes use it, in a working frame's pixels.
struct FoundFace {
    cv::Rect box;        // a Haar-cascade-like square
    cv::Rect mouth;      // centred between the mouth's corners, as wide as they are apart, half as tall; empty when unknown
    double roll = 0;     // how far the eye line turns clockwise from level (degrees)
};

/// The largest face in an upright 8-bit BGR image: found by CenterFace when
/// faceModel names its file (its landmarks give the roll and the mouth),
/// else by the Haar frontal-face cascade in cascadeDir.
bool findLargestFace(const cv::Mat &colour, const std::string &cascadeDir, const char *faceModel, FoundFace &face);

/// The other faces CenterFace finds in an upright 8-bit BGR image (none
/// without `faceModel`), as Haar-like boxes: those at least a third as wide as
/// `largest` and not centred inside it (the people of a group photo, not a
/// crowd far behind them).
std::vector<cv::Rect> otherFaces(const cv::Mat &colour, const char *faceModel, const cv::Rect &largest);

/// The upright working frame turned about a tilted face so its eyes are
/// level, on a canvas that holds all of it, and the way back. Faces within a
/// few degrees of level are left as they are.
struct LevelledFrame {
    cv::Mat forward; // 2x3 affine: working -> levelled
    cv::Size workingSize, levelledSize;
    bool turned = false;

    static LevelledFrame make(cv::Size working, const cv::Rect &face, double rollDegrees);
    /// An image of the working frame, levelled (border: how the new corners are filled).
    cv::Mat level(const cv::Mat &image, int interpolation, int border) const;
    /// A levelled matte back in the working frame (0 where it did not reach).
    cv::Mat back(const cv::Mat &matte) const;
    /// A box (the face's, the mouth's) in the levelled frame: the same size about its moved centre.
    cv::Rect box(const cv::Rect &working) const;
};

/// A Gaussian colour model of one surface in float CIELAB. d² below 7.8 is
/// inside 95% of a 3-D Gaussian, above 16.3 outside 99.9%.
struct ColourModel {
    /// How to fit: drop outliers first (median ± 2.5 MADs per channel), and
    /// how much wider to make the model along lightness than the samples show.
    struct Fitting {
        bool dropOutliers;
        double lightnessWidening;
    };
    /// Skin and hair: robust, and 4x wider along L, since shading changes
    /// lightness far more than hue.
    static const Fitting shadedSurface;
    /// Every sample as it is (sky: blue and clouds both count).
    static const Fitting plain;

    cv::Vec3d mean;
    cv::Matx33d inverseCovariance;

    static ColourModel fit(const std::vector<cv::Vec3f> &samples, const Fitting &fitting);
    /// Squared Mahalanobis distance of every pixel of a Lab float image.
    cv::Mat distance(const cv::Mat &lab) const;
};

/// An 8-bit BGR image as float CIELAB (L 0...100).
cv::Mat toLab(const cv::Mat &colour);

/// Background seen along the photo's top and sides, judged by colour against
/// the face's skin and the hair above it.
struct BorderBackground {
    cv::Mat seeds;  // 0/255: edge pixels of background colour
    cv::Mat likely; // 0/255: pixels of those colours that reach the seeds
};
BorderBackground borderBackground(const cv::Mat &lab, const cv::Rect &face);

/// The person around the face as a hard 0/255 mask (GrabCut seeded from the
/// face, with the background the photo's edges show).
cv::Mat personMask(const cv::Mat &colour, const cv::Rect &face, const BorderBackground &wall, int effort);

/// Softens a hard mask along the image's edges (guided filter), 0...255.
cv::Mat softEdges(const cv::Mat &colour, const cv::Mat &mask, int radius);

/// Carries a matte a model made inside `regions` (0/255: the face parser's
/// squares) on over the person (0/255, the working frame) outside them, by the colours the
/// matte holds inside: when `joined`, the pieces joined to it (hair falling
/// past the square), else every piece of the person in its colours at least
/// an eighth of a face wide (hands, arms).
void continueBeyondRegion(cv::Mat &matte, const cv::Mat &regions, const cv::Mat &lab, const cv::Mat &person,
                          bool joined, int faceWidth);

/// Takes a beard or moustache out of a hard skin mask (0/255): sizeable
/// pieces below the nose that cross the face's midline, on the face's skin
/// (`ground`, 0/255: not the neck), nearer in colour to the eyebrows (`brows`,
/// 0/255) than to the upper face's bare skin.
void leaveOutBeard(cv::Mat &skin, const cv::Mat &lab, const cv::Rect &face, const cv::Mat &brows, const cv::Mat &ground);

} // namespace mbx
