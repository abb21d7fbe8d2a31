// Mattes from a segmentation network run by cv::dnn: one installed by
// `mattebox models install` (MODNet, the face parser) or an ONNX file the
// user names. The photo is turned upright; a face parser sees a square about
// each face (at its input's resolution or finer), a matting network the whole
// photo. A matting network's alpha is pasted back as it is; a classifier's
// classes become solid where they win and soft along the photo's edges, a
// beard is left out of skin, and hair and skin go on past the squares over
// the portrait matte (parsed_surfaces.cpp). Mattes are brought to full size
// along the photo's edges.
#include "bridge.hpp"
#include "matte_steps.hpp"
#include "network.hpp"
#include <cmath>
#include <map>
#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

namespace mbx {

namespace {

/// Where the image goes in the model's input. Matting networks such as
/// MODNet are trained on whole frames with the person reaching the edges, and
/// extend the person into letterbox bands (on messi5.jpg, letterboxed, the
/// ball and grass joined the player; stretched, they did not, and FASSEG
/// heads scored the same or better). So the image fills the input, stretched
/// up to 2:1; only a photo more oblong than that keeps a 2:1 squeeze, centred,
/// with bands of the mean colour.
cv::Rect inputContent(cv::Size image, const mbx_cv_model_options &model) {
    const double ratio = (double(image.width) / image.height) / (double(model.input_width) / model.input_height);
    const double squeeze = 2.0;
    cv::Size inner(model.input_width, model.input_height);
    if (ratio > squeeze) inner.height = std::max(1, int(std::lround(model.input_height * squeeze / ratio)));
    if (ratio < 1 / squeeze) inner.width = std::max(1, int(std::lround(model.input_width * ratio * squeeze)));
    return cv::Rect((model.input_width - inner.width) / 2, (model.input_height - inner.height) / 2, inner.width,
                    inner.height);
}

/// The model's input: the image at `content` (see inputContent), the rest
/// the mean colour, which normalises to 0, as planes of (v / 255 - mean) /
/// std in the order the model wants.
cv::Mat inputBlob(const cv::Mat &bgr, const mbx_cv_model_options &model, const cv::Rect &content) {
    cv::Mat resized, floats;
    const bool shrinking = content.width < bgr.cols && content.height < bgr.rows;
    cv::resize(bgr, resized, content.size(), 0, 0, shrinking ? cv::INTER_AREA : cv::INTER_LINEAR);
    if (!model.bgr) cv::cvtColor(resized, resized, cv::COLOR_BGR2RGB);
    resized.convertTo(floats, CV_32F, 1.0 / 255.0);
    std::vector<cv::Mat> planes;
    cv::split(floats, planes);
    for (int c = 0; c < 3; c++) {
        float spread = model.std[c] != 0 ? model.std[c] : 1;
        cv::Mat plane = cv::Mat::zeros(model.input_height, model.input_width, CV_32F);
        cv::Mat((planes[c] - model.mean[c]) / spread).copyTo(plane(content));
        planes[c] = plane;
    }
    cv::merge(planes, floats);
    return cv::dnn::blobFromImage(floats); // HWC float -> 1x3xHxW, no further scaling
}

/// Per-class probabilities, each H x W float: softmax over the channels,
/// unless they already are probabilities; one channel is a matte in 0...1.
std::vector<cv::Mat> probabilities(const cv::Mat &output, const std::string &path) {
    if (output.dims != 4 || output.size[0] != 1)
        throw Failure{path + ": the model's output is not one N x C x H x W tensor"};
    const int channels = output.size[1], height = output.size[2], width = output.size[3];
    std::vector<cv::Mat> scores;
    for (int c = 0; c < channels; c++)
        scores.emplace_back(height, width, CV_32F, const_cast<float *>(output.ptr<float>(0, c)));
    double low = 0, high = 0;
    cv::minMaxLoc(output.reshape(1, 1), &low, &high);
    const bool unit = low >= 0 && high <= 1;
    std::vector<cv::Mat> result;
    if (channels == 1) {
        cv::Mat p = scores[0].clone();
        if (!unit) {
            cv::exp(-p, p);
            p = 1.0 / (1.0 + p);
        }
        result.push_back(p);
        return result;
    }
    cv::Mat sum = cv::Mat::zeros(height, width, CV_32F);
    for (auto &s : scores) sum += s;
    double sumLow = 0, sumHigh = 0;
    cv::minMaxLoc(sum, &sumLow, &sumHigh);
    if (unit && sumLow > 0.99 && sumHigh < 1.01) {
        for (auto &s : scores) result.push_back(s.clone());
        return result;
    }
    cv::Mat top = scores[0].clone();
    for (auto &s : scores) top = cv::max(top, s);
    cv::Mat total = cv::Mat::zeros(height, width, CV_32F);
    for (auto &s : scores) {
        cv::Mat e;
        cv::exp(s - top, e);
        total += e;
        result.push_back(e);
    }
    for (auto &r : result) r /= total;
    return result;
}

/// The region the model sees, in the upright working frame.
cv::Rect modelRegion(const cv::Size &frame, const cv::Rect &face, double crop) {
    cv::Rect whole(0, 0, frame.width, frame.height);
    if (crop <= 0) return whole;
    const int side = int(std::lround(crop * face.width));
    cv::Point centre(face.x + face.width / 2, face.y + face.height / 2);
    cv::Rect region = cv::Rect(centre.x - side / 2, centre.y - side / 2, side, side) & whole;
    if (region.area() <= 0) throw Failure{"the face lies outside the photo"};
    return region;
}

/// The model's answer for one face: the region it saw, the face in it, and
/// its per-class probabilities over that region (the input's content only).
struct Parse {
    cv::Rect region;
    cv::Rect face;
    std::vector<cv::Mat> classes;
};

/// The turn (cv::ROTATE_*) that brings a face rolled `roll` degrees clockwise nearest to upright, or -1
/// within 45 degrees of it: a face parser trained on upright faces misreads one on its side (FASSEG
/// faces turned a half turn lost their hair matte) and the levelling the classical method does is finer
/// than a parser needs.
int uprightTurn(double roll) {
    if (roll > 45 && roll <= 135) return cv::ROTATE_90_COUNTERCLOCKWISE;
    if (roll < -45 && roll >= -135) return cv::ROTATE_90_CLOCKWISE;
    if (std::abs(roll) > 135) return cv::ROTATE_180;
    return -1;
}

/// The turn that undoes `turn`.
int undoTurn(int turn) {
    if (turn == cv::ROTATE_90_CLOCKWISE) return cv::ROTATE_90_COUNTERCLOCKWISE;
    if (turn == cv::ROTATE_90_COUNTERCLOCKWISE) return cv::ROTATE_90_CLOCKWISE;
    return turn;
}

/// Runs the model on the region about `face` (the whole frame without a crop), turned upright first
/// when the face lies on its side or upside down (the answer turned back).
Parse parse(const WorkingFrame &frame, const cv::Rect &face, const mbx_cv_model_options &model) {
    const std::string path = model.path;
    Parse result{modelRegion(frame.colour.size(), face, model.crop), face, {}};
    const int turn = model.crop > 0 ? uprightTurn(model.face_roll) : -1;
    cv::Mat seen = frame.colour(result.region);
    if (turn >= 0) cv::rotate(seen, seen, turn);
    cv::Rect content = inputContent(seen.size(), model);
    const cv::Mat output = runNetwork(path, inputBlob(seen, model, content), {}, "the model", NetworkLayout::unfused)[0];
    result.classes = probabilities(output, path);
    if (output.size[2] != model.input_height || output.size[3] != model.input_width)
        content = cv::Rect(content.x * output.size[3] / model.input_width, content.y * output.size[2] / model.input_height,
                           content.width * output.size[3] / model.input_width,
                           content.height * output.size[2] / model.input_height);
    content &= cv::Rect(0, 0, output.size[3], output.size[2]);
    if (content.area() <= 0) throw Failure{path + ": the model's output is empty"};
    for (auto &c : result.classes) {
        c = c(content);
        if (turn >= 0) cv::rotate(c, c, undoTurn(turn));
    }
    return result;
}

/// One output's classes summed, as 8-bit at the region's size.
cv::Mat classMatte(const Parse &parsed, const mbx_cv_model_output &output, const std::string &path) {
    cv::Mat sum = cv::Mat::zeros(parsed.classes[0].size(), CV_32F);
    for (int k = 0; k < output.class_count; k++) {
        const int c = output.classes[k];
        if (c < 0 || c >= int(parsed.classes.size()))
            throw Failure{path + ": class " + std::to_string(c) + " asked for, but the model gives " +
                          std::to_string(parsed.classes.size()) + " (0..." + std::to_string(parsed.classes.size() - 1) + ")"};
        sum += parsed.classes[c];
    }
    cv::Mat matte8, resized;
    sum.convertTo(matte8, CV_8U, 255); // saturates above 1
    cv::resize(matte8, resized, parsed.region.size(), 0, 0, cv::INTER_LINEAR);
    return resized;
}

/// Where the given classes win together, 0/255 in the working frame (0 outside the region).
cv::Mat classesWin(const std::vector<cv::Mat> &classes, const int *list, int count, const cv::Rect &region,
                   cv::Size frame) {
    cv::Mat mask = cv::Mat::zeros(frame, CV_8U);
    if (!list || count <= 0) return mask;
    cv::Mat sum = cv::Mat::zeros(classes[0].size(), CV_32F);
    for (int k = 0; k < count; k++)
        if (list[k] >= 0 && list[k] < int(classes.size())) sum += classes[list[k]];
    cv::Mat resized;
    cv::resize(sum, resized, region.size(), 0, 0, cv::INTER_LINEAR);
    cv::Mat(resized > 0.5f).copyTo(mask(region));
    return mask;
}

} // namespace

} // namespace mbx

extern "C" int mbx_cv_model_mattes(const mbx_cv_image *image, const mbx_cv_matte_options *options, mbx_cv_rect face,
                                   const mbx_cv_model_options *model, mbx_cv_model_output *outputs, int output_count,
                                   mbx_cv_error *error) {
    return mbx::guarded(error, [&] {
        if (!image || !options || !model || !model->path || (!outputs && output_count > 0))
            throw mbx::Failure{"missing argument"};
        const std::string path = model->path;
        if (model->input_width <= 0 || model->input_height <= 0 || model->input_width > 4096 || model->input_height > 4096)
            throw mbx::Failure{path + ": the model's input size must be between 1 and 4096"};
        mbx::WorkingFrame frame = mbx::WorkingFrame::make(*image, *options);
        // The faces parsed: the given one, and with `every_face` the others CenterFace finds (in stored pixels).
        std::vector<mbx_cv_rect> faces = {face};
        if (model->crop > 0 && model->every_face)
            for (const cv::Rect &other : mbx::otherFaces(frame.colour, options->face_model, frame.toWorking(face)))
                faces.push_back(frame.toStored(other));
        if (model->crop > 0 && face.width > 0) {
            // The model should see the face's square at its own input size or finer, not a working
            // frame's few pixels stretched up; the frame grows for that, to at most 2048 pixels long.
            const double sharp = double(std::max(model->input_width, model->input_height)) / (model->crop * face.width);
            const double largest = 2048.0 / std::max(image->width, image->height);
            if (sharp > frame.scale && largest > frame.scale)
                frame = mbx::WorkingFrame::atScale(*image, options->orientation, std::min(sharp, largest));
        }
        std::vector<mbx::Parse> parses;
        for (const mbx_cv_rect &each : faces) parses.push_back(mbx::parse(frame, frame.toWorking(each), *model));
        // A process that runs its networks itself (one worker, the camera, a render) lets this one go
        // now, before the mattes are finished and encoded beside it: a dense network's buffers are the
        // largest thing such a process holds (MODNet's 222 MiB against x265's 162), and reading it
        // again for the next photo takes 50-85 ms. The batch's inference process keeps it for all its
        // workers.
        mbx::releaseNetwork(path, mbx::NetworkLayout::unfused);
        cv::Mat guide, person;
        if (model->person && model->crop > 0) {
            cv::Mat given = mbx::upright(mbx::toGrey8(*model->person, "portrait matte"), frame.orientation);
            cv::resize(given, person, frame.colour.size(), 0, 0, cv::INTER_AREA);
            person = person > 127;
        }
        const bool classifier = parses[0].classes.size() > 1;
        const cv::Mat lab = model->crop > 0 && classifier ? mbx::toLab(frame.colour) : cv::Mat();
        cv::Mat regions = cv::Mat::zeros(frame.colour.size(), CV_8U);
        for (const mbx::Parse &each : parses) regions(each.region).setTo(255);
        const int faceWidth = parses[0].face.width;
        const int edgeRadius =
            std::max(2, model->crop > 0 ? faceWidth / 48 : std::max(frame.colour.cols, frame.colour.rows) / 200);
        for (int i = 0; i < output_count; i++) {
            // Each face's square pasted in; where squares overlap, the stronger answer.
            cv::Mat full = cv::Mat::zeros(frame.colour.size(), CV_8U);
            for (const mbx::Parse &each : parses) {
                cv::Mat pasted = full(each.region);
                cv::max(pasted, mbx::classMatte(each, outputs[i], path), pasted);
            }
            if (classifier) {
                // Class scores are not an alpha: the matte is where the summed classes win (as Apple's mattes
                // are solid inside), carried on beyond the crop, then softened along the photo's own edges.
                full = full > 127;
                const int surface = outputs[i].surface;
                if (surface == MBX_CV_SURFACE_SKIN && model->crop > 0)
                    for (const mbx::Parse &each : parses)
                        mbx::leaveOutBeard(
                            full, lab, each.face,
                            mbx::classesWin(each.classes, model->facial_hair_classes, model->facial_hair_class_count,
                                            each.region, frame.colour.size()),
                            mbx::classesWin(each.classes, model->beard_ground_classes, model->beard_ground_class_count,
                                            each.region, frame.colour.size()));
                if ((surface == MBX_CV_SURFACE_HAIR || surface == MBX_CV_SURFACE_SKIN) && !person.empty())
                    mbx::continueBeyondRegion(full, regions, lab, person, surface == MBX_CV_SURFACE_HAIR, faceWidth);
                full = mbx::softEdges(frame.colour, full, edgeRadius);
            }
            const cv::Size size(outputs[i].plane.width, outputs[i].plane.height);
            if (outputs[i].plane.data && guide.size() != size) guide = mbx::photoAt(*image, size); // once for same-size planes
            mbx::writePlaneGuided(full, guide, frame.orientation, outputs[i].plane);
        }
    });
}
