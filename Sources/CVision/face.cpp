// Finding the face the mattes are built around: the Haar frontal-face cascade
// from opencv-data on an equalised upright grey image, largest face wins.
#include "portrait.hpp"
#include "bridge.hpp"
#include <cmath>
#include <map>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

namespace mbx {

WorkingFrame WorkingFrame::make(const mbx_cv_image &image, const mbx_cv_matte_options &options) {
    WorkingFrame frame;
    frame.orientation = options.orientation >= 1 && options.orientation <= 8 ? options.orientation : 1;
    const int longSide = options.effort <= 0 ? 384 : options.effort == 1 ? 512 : 768;
    frame.scale = std::min(1.0, double(longSide) / std::max(image.width, image.height));
    const cv::Size size(std::max(1, int(std::lround(image.width * frame.scale))),
                        std::max(1, int(std::lround(image.height * frame.scale))));
    cv::Mat small = toBGR8(image, "photo", frame.scale < 1 ? size : cv::Size());
    frame.smallStoredSize = small.size();
    frame.colour = upright(small, frame.orientation);
    return frame;
}

cv::Rect WorkingFrame::toWorking(const mbx_cv_rect &face) const {
    cv::Rect scaled(int(std::lround(face.x * scale)), int(std::lround(face.y * scale)),
                    std::max(1, int(std::lround(face.width * scale))), std::max(1, int(std::lround(face.height * scale))));
    return uprightRect(scaled, smallStoredSize, orientation);
}

mbx_cv_rect WorkingFrame::toStored(const cv::Rect &rect) const {
    cv::Rect s = storedRect(rect, smallStoredSize, orientation);
    return mbx_cv_rect{int(std::lround(s.x / scale)), int(std::lround(s.y / scale)),
                       int(std::lround(s.width / scale)), int(std::lround(s.height / scale))};
}

bool findLargestFace(const cv::Mat &colour, const std::string &cascadeDir, cv::Rect &face) {
    // One loaded cascade per thread and folder: detectMultiScale is not
    // documented as safe to share between threads.
    thread_local std::map<std::string, cv::CascadeClassifier> cascades;
    auto &cascade = cascades[cascadeDir];
    if (cascade.empty()) {
        std::string path = cascadeDir + "/haarcascade_frontalface_default.xml";
        if (!cascade.load(path))
            throw Failure{path + ": cannot load the face cascade (install opencv-data, or set the cascades parameter)"};
    }
    cv::Mat grey;
    cv::cvtColor(colour, grey, cv::COLOR_BGR2GRAY);
    cv::equalizeHist(grey, grey);
    std::vector<cv::Rect> faces;
    int minSide = std::max(24, std::min(grey.cols, grey.rows) / 12);
    cascade.detectMultiScale(grey, faces, 1.1, 3, 0, cv::Size(minSide, minSide));
    if (faces.empty()) return false;
    face = *std::max_element(faces.begin(), faces.end(),
                             [](const cv::Rect &a, const cv::Rect &b) { return a.area() < b.area(); });
    return true;
}

} // namespace mbx

extern "C" int mbx_cv_find_face(const mbx_cv_image *image, const mbx_cv_matte_options *options,
                                mbx_cv_rect *face, int *found, mbx_cv_error *error) {
    return mbx::guarded(error, [&] {
        if (!image || !options || !face || !found || !options->cascade_dir) throw mbx::Failure{"missing argument"};
        mbx::WorkingFrame frame = mbx::WorkingFrame::make(*image, *options);
        cv::Rect working;
        *found = mbx::findLargestFace(frame.colour, options->cascade_dir, working);
        if (*found) *face = frame.toStored(working);
    });
}
