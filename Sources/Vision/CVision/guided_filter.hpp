// The guided filter (He, Sun and Tang): an image smoothed along a colour
// guide's edges, and a matte computed on a small frame brought to a large one
// along the photo's edges (the fast guided filter, He and Sun 2015). Our own,
// so the vision code needs no opencv_ximgproc: that library pulls in
// opencv_imgcodecs and its hundred-odd image and GIS libraries (GDAL, GDCM,
// ...), 27 MiB of resident memory and 80 ms of loading in every process
// that runs a vision plugin.
#pragma once
#include <opencv2/core.hpp>

namespace mbx {

/// `source` (one channel, 8-bit or float) filtered along `guide` (8-bit
/// BGR, the same size) in windows `radius` pixels each way: in each window
/// the output is a linear function of the guide's colour (a . colour + b)
/// fitted to the source, so edges of the guide survive and the rest is
/// smoothed. `epsilon` is in 8-bit units squared (of the guide): the larger,
/// the more it smooths across weak edges. Float out.
cv::Mat guidedFilter(const cv::Mat &guide, const cv::Mat &source, int radius, double epsilon);

/// `coarse` (8-bit, any size) at `guide`'s size (8-bit BGR) into `out`
/// (8-bit, guide's size, written in place): the linear models fitted at the
/// coarse matte's own size, in windows `radius` of its pixels each way, from
/// the guide reduced to that size (the matte holds nothing finer, so the
/// coefficients lose nothing there), then spread bilinearly and applied to
/// the full-size guide's colours in one pass over its rows, which brings back
/// edges (hair) the coarse pixels cannot hold. A quarter of the time of the
/// filter run at full size on a 3 MP plane from a 768-pixel matte, and only
/// the small frame's buffers.
void guidedUpsample(const cv::Mat &coarse, const cv::Mat &guide, int radius, double epsilon, cv::Mat &out);

} // namespace mbx
