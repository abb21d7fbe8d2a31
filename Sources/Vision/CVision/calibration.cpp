// Stereo calibration from chessboard pairs, the classic OpenCV recipe: find
// the inner corners in both views, calibrate each camera, refine jointly,
// rectify, and store everything a later rectification needs.
#include "bridge.hpp"
#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>
#include <vector>

extern "C" int mbx_cv_calibrate_stereo(const mbx_cv_image *lefts, const mbx_cv_image *rights, int count,
                                       int board_cols, int board_rows, double square_size,
                                       const char *output_path, int *found, mbx_cv_calibration *result,
                                       mbx_cv_error *error) {
    return mbx::guarded(error, [&] {
        if (!lefts || !rights || count <= 0 || !output_path) throw mbx::Failure{"no chessboard pairs given"};
        if (board_cols < 2 || board_rows < 2 || square_size <= 0)
            throw mbx::Failure{"the board needs at least 2x2 inner corners and a positive square size"};
        const cv::Size board(board_cols, board_rows);
        std::vector<cv::Point3f> model;
        for (int r = 0; r < board_rows; r++)
            for (int c = 0; c < board_cols; c++) model.emplace_back(float(c * square_size), float(r * square_size), 0.f);

        std::vector<std::vector<cv::Point3f>> objects;
        std::vector<std::vector<cv::Point2f>> leftCorners, rightCorners;
        cv::Size size;
        auto detect = [&](const cv::Mat &grey, std::vector<cv::Point2f> &corners) {
            if (!cv::findChessboardCorners(grey, board, corners,
                                           cv::CALIB_CB_ADAPTIVE_THRESH | cv::CALIB_CB_NORMALIZE_IMAGE))
                return false;
            cv::cornerSubPix(grey, corners, cv::Size(11, 11), cv::Size(-1, -1),
                             cv::TermCriteria(cv::TermCriteria::EPS | cv::TermCriteria::COUNT, 30, 0.01));
            return true;
        };
        for (int i = 0; i < count; i++) {
            cv::Mat l = mbx::toGrey8(lefts[i], "left view"), r = mbx::toGrey8(rights[i], "right view");
            if (size.empty()) size = l.size();
            if (l.size() != size || r.size() != size)
                throw mbx::Failure{"pair " + std::to_string(i + 1) + " differs in size from the first pair"};
            std::vector<cv::Point2f> lc, rc;
            bool ok = detect(l, lc) && detect(r, rc);
            if (found) found[i] = ok;
            if (!ok) continue;
            objects.push_back(model);
            leftCorners.push_back(lc);
            rightCorners.push_back(rc);
        }
        if (objects.size() < 3)
            throw mbx::Failure{"the " + std::to_string(board_cols) + "x" + std::to_string(board_rows) +
                               " board was found in both views of only " + std::to_string(objects.size()) +
                               " pairs; at least 3 are needed (check --board: it counts inner corners)"};

        cv::Mat K1, D1, K2, D2, R, T, E, F;
        std::vector<cv::Mat> rv, tv;
        double leftRms = cv::calibrateCamera(objects, leftCorners, size, K1, D1, rv, tv);
        double rightRms = cv::calibrateCamera(objects, rightCorners, size, K2, D2, rv, tv);
        double rms = cv::stereoCalibrate(objects, leftCorners, rightCorners, K1, D1, K2, D2, size, R, T, E, F,
                                         cv::CALIB_USE_INTRINSIC_GUESS,
                                         cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 100, 1e-6));
        cv::Mat R1, R2, P1, P2, Q;
        cv::stereoRectify(K1, D1, K2, D2, size, R, T, R1, R2, P1, P2, Q, cv::CALIB_ZERO_DISPARITY, 0);

        cv::FileStorage file(output_path, cv::FileStorage::WRITE);
        if (!file.isOpened()) throw mbx::Failure{std::string(output_path) + ": cannot write the calibration"};
        file << "image_width" << size.width << "image_height" << size.height;
        file << "board_cols" << board_cols << "board_rows" << board_rows << "square_size" << square_size;
        file << "rms" << rms << "pairs_used" << int(objects.size());
        file << "K1" << K1 << "D1" << D1 << "K2" << K2 << "D2" << D2 << "R" << R << "T" << T << "E" << E << "F" << F;
        file << "R1" << R1 << "R2" << R2 << "P1" << P1 << "P2" << P2 << "Q" << Q;
        file.release();

        if (result) {
            result->rms = rms;
            result->left_rms = leftRms;
            result->right_rms = rightRms;
            result->pairs_used = int(objects.size());
            result->focal_px = P1.at<double>(0, 0);
            result->baseline = std::abs(P2.at<double>(0, 3) / P2.at<double>(0, 0));
        }
    });
}
