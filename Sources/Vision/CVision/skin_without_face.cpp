// Skin where no face is found but a person matte is (an iPhone's own, a
// user's): hands, arms, legs and feet in the frame. Without a face to learn
// the skin's colour from, the colour is found in two steps: a broad prior of
// human skin in YCrCb (Chai and Ngan 1999: 133 <= Cr <= 173, 77 <= Cb <= 127,
// which holds across skin tones, as skin differs mostly in lightness) picks
// candidate pixels inside the person, and a colour model fitted to them (the
// same robust Lab model the face's skin uses) decides, so the person's own
// skin is kept and clothes of a skin-like hue are not.
#include "bridge.hpp"
#include "discs.hpp"
#include "matte_steps.hpp"
#include <opencv2/imgproc.hpp>

extern "C" int mbx_cv_skin_without_face(const mbx_cv_image *image, const mbx_cv_matte_options *options,
                                        const mbx_cv_image *person, mbx_cv_plane *matte, int *found, mbx_cv_error *error) {
    return mbx::guarded(error, [&] {
        if (!image || !options || !person || !matte || !found) throw mbx::Failure{"missing argument"};
        *found = 0;
        mbx::WorkingFrame frame = mbx::WorkingFrame::make(*image, *options);
        cv::Mat given = mbx::upright(mbx::toGrey8(*person, "portrait matte"), frame.orientation), personSoft;
        cv::resize(given, personSoft, frame.colour.size(), 0, 0, cv::INTER_AREA);
        const cv::Mat inPerson = personSoft > 127;
        const int personArea = cv::countNonZero(inPerson);
        cv::Mat skin = cv::Mat::zeros(frame.colour.size(), CV_8U);
        if (personArea > 0) {
            cv::Mat ycrcb;
            cv::cvtColor(frame.colour, ycrcb, cv::COLOR_BGR2YCrCb);
            cv::Mat prior;
            cv::inRange(ycrcb, cv::Scalar(0, 133, 77), cv::Scalar(255, 173, 127), prior);
            prior &= inPerson;
            cv::erode(prior, prior, cv::Mat()); // keep the edges' mixed pixels out of the model
            const cv::Mat lab = mbx::toLab(frame.colour);
            std::vector<cv::Vec3f> samples;
            for (int y = 0; y < prior.rows; y++)
                for (int x = 0; x < prior.cols; x++)
                    if (prior.at<uchar>(y, x)) samples.push_back(lab.at<cv::Vec3f>(y, x));
            // Too few candidates to be skin: a sliver of a wrist is not worth a matte.
            if (int(samples.size()) >= std::max(50, personArea / 200)) {
                const mbx::ColourModel model = mbx::ColourModel::fit(samples, mbx::ColourModel::shadedSurface);
                skin = (model.distance(lab) < 7.8) & inPerson;
                const cv::Mat round = mbx::disc(std::max(1, std::max(skin.cols, skin.rows) / 300));
                cv::morphologyEx(skin, skin, cv::MORPH_OPEN, round);
                cv::morphologyEx(skin, skin, cv::MORPH_CLOSE, round);
                cv::Mat labels, stats, centroids;
                const int count = cv::connectedComponentsWithStats(skin, labels, stats, centroids, 8, CV_32S);
                cv::Mat kept = cv::Mat::zeros(skin.size(), CV_8U);
                for (int label = 1; label < count; label++)
                    if (stats.at<int>(label, cv::CC_STAT_AREA) >= std::max(30, personArea / 100)) kept.setTo(255, labels == label);
                skin = kept;
            }
        }
        *found = cv::countNonZero(skin) > 0;
        const int radius = std::max(2, std::max(frame.colour.cols, frame.colour.rows) / 200);
        cv::Mat soft = *found ? mbx::softEdges(frame.colour, skin, radius) : skin;
        mbx::writePlaneGuided(soft, *found ? mbx::photoAt(*image, cv::Size(matte->width, matte->height)) : cv::Mat(),
                              frame.orientation, *matte);
    });
}
