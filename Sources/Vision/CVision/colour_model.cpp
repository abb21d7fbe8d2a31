// A Gaussian colour model in CIELAB, fitted to samples of one surface
// (skin, hair, sky) and scoring every pixel by Mahalanobis distance.
#include "bridge.hpp"
#include "matte_steps.hpp"
#include <algorithm>
#include <cmath>
#include <opencv2/core.hpp>

namespace mbx {

const ColourModel::Fitting ColourModel::shadedSurface{true, 4.0};
const ColourModel::Fitting ColourModel::plain{false, 1.0};

ColourModel ColourModel::fit(const std::vector<cv::Vec3f> &samples, const Fitting &fitting) {
    if (samples.size() < 20) throw Failure{"too few colour samples to model"};
    std::vector<cv::Vec3f> kept = samples;
    if (fitting.dropOutliers) {
        // Median and median absolute deviation per channel; keep samples within 2.5 MADs.
        cv::Vec3f median, spread;
        for (int c = 0; c < 3; c++) {
            std::vector<float> v(samples.size());
            for (size_t i = 0; i < samples.size(); i++) v[i] = samples[i][c];
            std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
            median[c] = v[v.size() / 2];
            for (auto &x : v) x = std::abs(x - median[c]);
            std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
            spread[c] = std::max(1.0f, 1.4826f * v[v.size() / 2]);
        }
        kept.clear();
        for (auto &s : samples) {
            bool inlier = true;
            for (int c = 0; c < 3; c++) inlier = inlier && std::abs(s[c] - median[c]) <= 2.5f * spread[c];
            if (inlier) kept.push_back(s);
        }
        if (kept.size() < 10) kept = samples;
    }
    cv::Mat data(int(kept.size()), 3, CV_32F, kept.data()), covariance, mean;
    cv::calcCovarMatrix(data, covariance, mean, cv::COVAR_NORMAL | cv::COVAR_ROWS | cv::COVAR_SCALE, CV_64F);
    covariance += cv::Mat::eye(3, 3, CV_64F) * 4.0; // a floor for very even surfaces
    covariance.row(0) *= fitting.lightnessWidening;
    covariance.col(0) *= fitting.lightnessWidening;
    ColourModel model;
    model.mean = cv::Vec3d(mean.at<double>(0), mean.at<double>(1), mean.at<double>(2));
    model.inverseCovariance = cv::Matx33d(cv::Mat(covariance.inv()));
    return model;
}

cv::Mat ColourModel::distance(const cv::Mat &lab) const {
    cv::Mat out(lab.size(), CV_32F);
    lab.forEach<cv::Vec3f>([&](const cv::Vec3f &p, const int *at) {
        cv::Vec3d d(p[0] - mean[0], p[1] - mean[1], p[2] - mean[2]);
        out.at<float>(at[0], at[1]) = float((d.t() * (inverseCovariance * d))(0));
    });
    return out;
}

} // namespace mbx
