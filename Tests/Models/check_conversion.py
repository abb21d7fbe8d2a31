"""The face mesh and the pose model as Mattebox converted them (ONNX, run by OpenCV's dnn, as the
plugins run it) against the TensorFlow Lite original run by TensorFlow Lite's
own interpreter, on three inputs: a seeded random one, the face of
opencv-doc's messi5.jpg, and that face turned by 25 degrees and darkened. The
landmarks must agree within 0.01 px of the 192 px input and the face score's
logit within 0.001; for the pose model (a 256 px square about messi5's
whole body, and a seeded random input) the keypoints within 0.05 px, their
visibility logits within 0.01, and the pose score within 0.001. The mesh is then drawn on messi5 and, when ../shared/eval
is beside the checkout, on two FASSEG faces (test artifacts)."""
import argparse, os, sys, zipfile
import cv2
import numpy as np
from ai_edge_litert.interpreter import Interpreter

MEMBER = "mediapipe/modules/face_landmark/face_landmark.tflite"
MESSI = "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"
CASCADE = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml"
LANDMARK_TOLERANCE, SCORE_TOLERANCE = 0.01, 0.001


MESSI_FACE = (212, 78, 44, 44)  # marked by hand: the cascade's largest box on messi5 is in the crowd


def face_crop(image, turn=0.0, box=None):
    if box is None:
        grey = cv2.equalizeHist(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
        faces = cv2.CascadeClassifier(CASCADE).detectMultiScale(grey, 1.1, 3)
        if len(faces) == 0:
            sys.exit("no face found for the conversion test")
        box = max(faces, key=lambda f: f[2] * f[3])
    x, y, w, h = box
    side = 1.5 * max(w, h)
    toCrop = cv2.getRotationMatrix2D((x + w / 2, y + h / 2), turn, 192 / side)
    toCrop[:, 2] += (96 - (x + w / 2), 96 - (y + h / 2))
    crop = cv2.warpAffine(image, toCrop, (192, 192), flags=cv2.INTER_LINEAR)
    return crop, toCrop


def as_input(crop):
    return (cv2.cvtColor(crop, cv2.COLOR_BGR2RGB).astype(np.float32) / 255)[None]


POSE_MEMBER = "mediapipe/modules/pose_landmark/pose_landmark_full.tflite"
MESSI_BODY = (60, 60, 410, 280)  # marked by hand: messi5's player from his raised hand to his boots


def check_pose(wheel, onnx_path, messi):
    tflite = os.path.join(os.path.dirname(wheel), "pose_landmark_full.tflite")
    with zipfile.ZipFile(wheel) as archive, open(tflite, "wb") as out:
        out.write(archive.read(POSE_MEMBER))
    interpreter = Interpreter(model_path=tflite)
    interpreter.allocate_tensors()
    given = interpreter.get_input_details()[0]
    outputs = {o["name"]: o["index"] for o in interpreter.get_output_details()}
    net = cv2.dnn.readNetFromONNX(onnx_path)
    x, y, w, h = MESSI_BODY
    side = 1.25 * max(w, h)
    toCrop = np.float32([[256 / side, 0, 128 - (x + w / 2) * 256 / side], [0, 256 / side, 128 - (y + h / 2) * 256 / side]])
    body = cv2.warpAffine(messi, toCrop, (256, 256))
    inputs = {"seeded random": np.random.default_rng(11).random((1, 256, 256, 3), dtype=np.float32),
              "messi5's body": (cv2.cvtColor(body, cv2.COLOR_BGR2RGB).astype(np.float32) / 255)[None]}
    failures = 0
    for name, value in inputs.items():
        interpreter.set_tensor(given["index"], value)
        interpreter.invoke()
        want = interpreter.get_tensor(outputs["Identity"]).reshape(39, 5)
        want_score = interpreter.get_tensor(outputs["Identity_1"]).ravel()
        net.setInput(np.ascontiguousarray(value.transpose(0, 3, 1, 2)))
        got, got_score = net.forward(["Identity", "Identity_1"])
        got = got.reshape(39, 5)
        points_error = float(np.abs(got[:, :2] - want[:, :2]).max())
        visibility_error = float(np.abs(got[:, 3] - want[:, 3]).max())
        score_error = float(np.abs(got_score.ravel() - want_score).max())
        ok = points_error <= 0.05 and visibility_error <= 0.01 and score_error <= 0.001
        failures += not ok
        print("%s pose, %s: keypoints differ by at most %.2e px, visibility logits by %.2e, score by %.2e (TFLite score %.3f)"
              % ("ok  " if ok else "FAIL", name, points_error, visibility_error, score_error, want_score[0]))
        if name.startswith("messi5") and want_score[0] < 0.5:
            failures += 1
            print("FAIL pose, %s: TensorFlow Lite finds no person; the input is not what it should be" % name)
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--wheel", required=True)
    parser.add_argument("--onnx", required=True)
    parser.add_argument("--pose-onnx", default="")
    parser.add_argument("--artifacts", required=True)
    args = parser.parse_args()
    os.makedirs(args.artifacts, exist_ok=True)
    tflite = os.path.join(os.path.dirname(args.wheel), "face_landmark.tflite")
    with zipfile.ZipFile(args.wheel) as archive, open(tflite, "wb") as out:
        out.write(archive.read(MEMBER))
    interpreter = Interpreter(model_path=tflite)
    interpreter.allocate_tensors()
    given = interpreter.get_input_details()[0]
    outputs = {o["name"]: o["index"] for o in interpreter.get_output_details()}
    net = cv2.dnn.readNetFromONNX(args.onnx)

    messi = cv2.imread(MESSI)
    face, _ = face_crop(messi, box=MESSI_FACE)
    turned, _ = face_crop(messi, turn=25, box=MESSI_FACE)
    inputs = {
        "seeded random": np.random.default_rng(7).random((1, 192, 192, 3), dtype=np.float32),
        "messi5 face": as_input(face),
        "messi5 face turned 25 degrees, darkened": as_input(turned) * 0.6,
    }
    failures = 0
    for name, x in inputs.items():
        interpreter.set_tensor(given["index"], x)
        interpreter.invoke()
        want_points = interpreter.get_tensor(outputs["conv2d_21"]).ravel()
        want_score = interpreter.get_tensor(outputs["conv2d_31"]).ravel()
        net.setInput(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))
        got_points, got_score = [o.ravel() for o in net.forward(["conv2d_21", "conv2d_31"])]
        points_error = float(np.abs(got_points - want_points).max())
        score_error = float(np.abs(got_score - want_score).max())
        ok = points_error <= LANDMARK_TOLERANCE and score_error <= SCORE_TOLERANCE
        failures += not ok
        if name.startswith("messi5") and want_score[0] < 0:
            failures += 1
            print("FAIL %s: TensorFlow Lite does not take the face for one; the input is not what it should be" % name)
        print("%s %s: landmarks differ by at most %.2e px, face score logit by %.2e (TFLite score %.3f)"
              % ("ok  " if ok else "FAIL", name, points_error, score_error, 1 / (1 + np.exp(-want_score[0]))))

    if args.pose_onnx:
        failures += check_pose(args.wheel, args.pose_onnx, messi)

    photos = [MESSI]
    fasseg = os.path.join(os.path.dirname(__file__), "../../../shared/eval/faceparsing/fasseg_frontal02/rgb")
    photos += [os.path.join(fasseg, n) for n in ("1.bmp", "6.bmp") if os.path.exists(os.path.join(fasseg, n))]
    for path in photos:
        image = cv2.imread(path)
        box = MESSI_FACE if path == MESSI else None
        for _ in range(2):  # the second crop from the first pass's points, as MediaPipe tracks a face
            crop, toCrop = face_crop(image, box=box)
            net.setInput(cv2.dnn.blobFromImage(crop, 1 / 255, swapRB=True))
            points = net.forward("conv2d_21").reshape(468, 3)[:, :2]
            drawn = cv2.transform(points[None].astype(np.float32), cv2.invertAffineTransform(toCrop))[0]
            (x0, y0), (x1, y1) = drawn.min(0), drawn.max(0)
            box = (x0, y0, x1 - x0, y1 - y0)
        scale = max(1, 512 // max(image.shape[:2]))
        out = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_CUBIC)
        for px, py in drawn * scale:
            cv2.circle(out, (int(round(px)), int(round(py))), 1, (0, 255, 0), -1)
        cv2.imwrite(os.path.join(args.artifacts, os.path.splitext(os.path.basename(path))[0] + "-landmarks.png"), out)
    print("landmarks drawn on %d photos in %s" % (len(photos), args.artifacts))
    if failures:
        sys.exit("%d of %d inputs differ beyond the tolerance" % (failures, len(inputs)))


main()
