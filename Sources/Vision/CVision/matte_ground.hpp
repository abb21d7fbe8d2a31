// The surface a matte's subject stands on, left out of the matte for a new
// background or a cut-out.
//
// A portrait-matting network takes a person to go on out of the frame's foot,
// so a standing figure's matte covers the floor or table under its feet down
// to the frame's edge (MODNet on a figurine on a table). Where the photo
// measured depth, the part of the matte joined to the frame's foot that lies
// nearer the depth of the background beside it (in the same row) than the
// subject's is where depth cannot tell the subject from the surface: at the
// feet they touch. There colour does (GrabCut), learnt from what depth and the
// matte do tell: the background beside that part, and the subject above it.
// A body that goes on out of the frame stands in front of what is beside it,
// so depth keeps it whole whatever its colours.
#pragma once
#include <opencv2/core.hpp>

namespace mbx {

/// How much of each pixel stays in the subject (CV_32F, 1 where nothing changes), or an empty
/// Mat when the matte holds no surface under the subject. All upright (the frame's foot is its
/// last row) and at one size: `guide` the photo (CV_32FC3, 0...1), `depth` its disparity (CV_32F,
/// larger is nearer), `subject` the matte (CV_32F, 0...1) and `subjectPlane` its disparity;
/// `band` is the matte's edge band in pixels.
cv::Mat subjectWithoutGround(const cv::Mat &guide, const cv::Mat &depth, const cv::Mat &subject, float subjectPlane, int band);

} // namespace mbx
