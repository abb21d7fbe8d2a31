// The steps of the hair, skin and teeth mattes: the classical ones laid out
// on a Haar-like face box (semantic.cpp), and the ones drawn from the face
// mesh's landmarks when it is installed (semantic_landmarks.cpp).
#pragma once
#include "landmarks.hpp"
#include "pose.hpp"
#include <opencv2/core.hpp>
#include <vector>

namespace mbx {

/// Lab pixels of an area (clipped to the image) added to samples.
void collect(const cv::Mat &lab, cv::Rect area, std::vector<cv::Vec3f> &samples);
/// A part of a face box, in fractions of its width and height.
cv::Rect part(const cv::Rect &face, double x0, double y0, double x1, double y1);

/// Skin likelihood 0...255: from the cheeks and forehead of a face box, or from given samples.
cv::Mat skinLikelihood(const cv::Mat &lab, const cv::Rect &face);
cv::Mat skinLikelihood(const cv::Mat &lab, const std::vector<cv::Vec3f> &samples);
/// The skin of the face and neck: skin-coloured person pixels joined to the face box.
cv::Mat skinMask(const cv::Mat &likelihood, const cv::Mat &person, const cv::Rect &face);
/// Hair: GrabCut within the person, seeded above the forehead and beside the temples.
cv::Mat hairMask(const cv::Mat &colour, const cv::Mat &lab, const cv::Mat &person, const cv::Mat &skin,
                 const cv::Mat &background, const cv::Rect &face, int effort);
/// The eyebrows, for a hair matte that counts them.
cv::Mat browMask(const cv::Mat &lab, const cv::Mat &skinLikelihood, const cv::Rect &face);
/// Teeth in the mouth region (the known mouth, else where a Haar box's mouth lies); found says whether any show.
cv::Mat teethMask(const cv::Mat &lab, const cv::Mat &skinLikelihood, const cv::Rect &face, const cv::Rect &knownMouth,
                  bool &found);

/// The face's own skin colour, sampled on discs at the mesh's cheek and forehead points.
std::vector<cv::Vec3f> landmarkSkinSamples(const cv::Mat &lab, const FaceLandmarks &marks);
/// The oval the mesh outlines, as a 0/255 mask.
cv::Mat faceOval(const FaceLandmarks &marks, cv::Size size);
/// The whole head about the face the mesh outlines (where hair can be): an
/// ellipse about the top of the oval, a little wider than the face.
cv::Mat headExtent(const FaceLandmarks &marks, cv::Size size);
/// Whether a person matte (0/255) misses the face: less than half of its oval is in it.
bool personMissesFace(const cv::Mat &person, const cv::Mat &oval);
/// Skin from the landmarks: the oval without eyes, brows and lips, with the
/// skin-coloured person pixels around it (ears, neck, forehead to the
/// hairline) and of the same body (arms, hands, legs), without holes.
/// samples are the face's own skin colours (landmarkSkinSamples); with a
/// pose, skin away from the head is kept along the arms and legs only.
cv::Mat landmarkSkin(const cv::Mat &colour, const cv::Mat &lab, const std::vector<cv::Vec3f> &samples, const cv::Mat &likelihood,
                     const cv::Mat &person, const FaceLandmarks &marks, const BodyPose *pose);
/// The box of the person (0/255) joined to the face; empty when none.
cv::Rect personExtent(const cv::Mat &person, const FaceLandmarks &marks);
/// The MBX_CV_POSE_* bits of visible elbows, wrists, knees and ankles a person matte (0...255) misses.
unsigned keypointsOutside(const BodyPose &pose, const cv::Mat &person);
/// Hair kept out of the oval but where it reaches in from outside (a fringe,
/// sideburns) away from the features and not of the skin's colour,
/// and the skin kept out of the hair.
void settleHairAndSkin(cv::Mat &skin, cv::Mat &hair, const cv::Mat &likelihood, const FaceLandmarks &marks);
/// The eyebrows' hairs: pixels not of the skin's colour about the mesh's brow outlines.
cv::Mat landmarkBrows(const cv::Mat &likelihood, const FaceLandmarks &marks);
/// Teeth: the bright pixels between the inner lips; none when the lips are closed.
cv::Mat landmarkTeeth(const cv::Mat &lab, const cv::Mat &likelihood, const cv::Rect &face, const FaceLandmarks &marks,
                      bool &found);

} // namespace mbx
