// The background a portrait shows along its top and sides. GrabCut alone
// cannot tell a plain wall from the person when the head fills the frame:
// its "probable person" prior then covers the wall too. The photo's own top
// and side edges (above the chin) hold the wall, and often hair; colours
// there that look like neither this face's skin nor the hair just above the
// face are taken as background, and so is every pixel of such a colour that
// reaches the edge through pixels of the same colour.
#include "matte_steps.hpp"
#include <opencv2/imgproc.hpp>

namespace mbx {

namespace {

cv::Vec3f medianColour(const cv::Mat &lab, cv::Rect area) {
    area &= cv::Rect(0, 0, lab.cols, lab.rows);
    std::vector<float> channel[3];
    for (int y = area.y; y < area.y + area.height; y++)
        for (int x = area.x; x < area.x + area.width; x++)
            for (int c = 0; c < 3; c++) channel[c].push_back(lab.at<cv::Vec3f>(y, x)[c]);
    cv::Vec3f median;
    for (int c = 0; c < 3; c++) {
        if (channel[c].empty()) return cv::Vec3f(-1000, 0, 0);
        std::nth_element(channel[c].begin(), channel[c].begin() + channel[c].size() / 2, channel[c].end());
        median[c] = channel[c][channel[c].size() / 2];
    }
    return median;
}

float colourDistance(const cv::Vec3f &a, const cv::Vec3f &b) { return float(cv::norm(a - b)); }

} // namespace

cv::Mat toLab(const cv::Mat &colour) {
    cv::Mat floats, lab;
    colour.convertTo(floats, CV_32F, 1.0 / 255.0);
    cv::cvtColor(floats, lab, cv::COLOR_BGR2Lab);
    return lab;
}

BorderBackground borderBackground(const cv::Mat &lab, const cv::Rect &face) {
    BorderBackground result{cv::Mat::zeros(lab.size(), CV_8U), cv::Mat::zeros(lab.size(), CV_8U)};
    const int band = std::max(2, std::min(lab.cols, lab.rows) / 40);
    const int bottom = std::min(lab.rows, face.y + face.height);
    if (bottom <= band) return result;
    cv::Mat edge = cv::Mat::zeros(lab.size(), CV_8U);
    edge(cv::Rect(0, 0, lab.cols, band)).setTo(255);
    edge(cv::Rect(0, 0, band, bottom)).setTo(255);
    edge(cv::Rect(lab.cols - band, 0, band, bottom)).setTo(255);
    std::vector<cv::Point> edgePixels;
    cv::findNonZero(edge, edgePixels);
    cv::Mat samples(int(edgePixels.size()), 3, CV_32F);
    for (size_t i = 0; i < edgePixels.size(); i++) {
        cv::Vec3f p = lab.at<cv::Vec3f>(edgePixels[i]);
        for (int c = 0; c < 3; c++) samples.at<float>(int(i), c) = p[c];
    }
    const int clusters = 4;
    cv::Mat assignment, centres;
    cv::setRNGSeed(1); // the same photo always gives the same matte
    cv::kmeans(samples, clusters, assignment, cv::TermCriteria(cv::TermCriteria::EPS | cv::TermCriteria::COUNT, 20, 0.5),
               3, cv::KMEANS_PP_CENTERS, centres);

    // What the person looks like: the cheeks' skin and the hair (or forehead)
    // just above the face box.
    auto at = [&](double x0, double y0, double x1, double y1) {
        return cv::Rect(int(face.x + x0 * face.width), int(face.y + y0 * face.height), int((x1 - x0) * face.width),
                        int((y1 - y0) * face.height));
    };
    const cv::Vec3f skin = medianColour(lab, at(0.2, 0.5, 0.8, 0.65));
    const float near = 12; // CIELAB ΔE: clearly different colours
    // The hair: in each column above the middle of the face, the first
    // stretch going up from the forehead whose colour is clearly not that
    // column's forehead (a bald head gives the wall instead, which then is
    // simply not taken as background).
    cv::Mat smooth;
    cv::blur(lab, smooth, cv::Size(5, 5));
    std::vector<cv::Vec3f> hair;
    const int reach = std::max(2, face.height / 6);
    const int start = std::min(lab.rows - 1, face.y + face.height / 5);
    for (int x = face.x + face.width * 3 / 10; x < face.x + face.width * 7 / 10; x++) {
        if (x < 0 || x >= lab.cols || start < 0) continue;
        const cv::Vec3f forehead = smooth.at<cv::Vec3f>(start, x);
        int taken = 0;
        for (int y = start; y >= 0 && taken < reach; y--) {
            cv::Vec3f p = smooth.at<cv::Vec3f>(y, x);
            if (taken > 0 || colourDistance(p, forehead) > near) {
                hair.push_back(lab.at<cv::Vec3f>(y, x));
                taken++;
            }
        }
    }
    // How much of that hair each cluster's colour matches.
    std::vector<int> hairVotes(clusters, 0);
    const int hairSamples = int(hair.size());
    for (const cv::Vec3f &p : hair)
        for (int k = 0; k < clusters; k++)
            if (colourDistance(p, centres.row(k)) < near) hairVotes[k]++;
    // A cluster is background when it is a real share of the edge, far from
    // the skin, and not what lies just above the face.
    std::vector<int> sizes(clusters, 0);
    std::vector<double> spread(clusters, 0);
    for (int i = 0; i < assignment.rows; i++) {
        int k = assignment.at<int>(i);
        sizes[k]++;
        spread[k] += colourDistance(samples.row(i), centres.row(k));
    }
    std::vector<bool> background(clusters, false);
    for (int k = 0; k < clusters; k++) {
        // A wall is even: a cluster spread wide is a mix of edges and hair.
        bool even = sizes[k] > 0 && spread[k] / sizes[k] < near / 2;
        background[k] = even && sizes[k] * 20 >= int(edgePixels.size()) && colourDistance(centres.row(k), skin) > near &&
                        hairVotes[k] * 20 < std::max(1, hairSamples);
    }
    for (size_t i = 0; i < edgePixels.size(); i++)
        if (background[assignment.at<int>(int(i))]) result.seeds.at<uchar>(edgePixels[i]) = 255;
    // Pixels above the chin whose nearest colour is a background one, and close to it.
    cv::Mat close = cv::Mat::zeros(lab.size(), CV_8U);
    lab.rowRange(0, bottom).forEach<cv::Vec3f>([&](const cv::Vec3f &p, const int *position) {
        int nearest = 0;
        float best = colourDistance(p, centres.row(0));
        for (int k = 1; k < clusters; k++) {
            float d = colourDistance(p, centres.row(k));
            if (d < best) best = d, nearest = k;
        }
        if (background[nearest] && best < near / 2) close.at<uchar>(position[0], position[1]) = 255;
    });
    // Same-coloured pixels count only where they reach a seed.
    cv::Mat labels;
    int count = cv::connectedComponents(close | result.seeds, labels, 8, CV_32S);
    std::vector<bool> touches(count, false);
    for (const cv::Point &p : edgePixels)
        if (result.seeds.at<uchar>(p)) touches[labels.at<int>(p)] = true;
    labels.forEach<int>([&](const int &label, const int *position) {
        if (label > 0 && touches[label]) result.likely.at<uchar>(position[0], position[1]) = 255;
    });
    return result;
}

} // namespace mbx
