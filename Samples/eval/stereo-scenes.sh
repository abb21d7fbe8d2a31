#!/bin/sh
# Builds stereo scenes with ground truth that Mattebox was not tuned on, from
# Debian packages (no other download), in the scene.json layout that
# `mattebox evaluate` reads:
#   aloe       Middlebury 2006 "Aloe", full size, from opencv-doc
#              (examples/data/aloeL.jpg, aloeR.jpg, aloeGT.png; disparity = value)
#   motorcycle Middlebury 2014 "Motorcycle", quarter size, from python3-skimage
#              (skimage/data/motorcycle_{left,right}.png, motorcycle_disp.npz)
# Middlebury asks for a citation: Scharstein et al., DAGM 2006 / GCPR 2014.
# Usage: Samples/eval/stereo-scenes.sh OUT   (writes OUT/aloe, OUT/motorcycle)
set -eu
out=${1:?usage: stereo-scenes.sh OUT}
opencv=/usr/share/doc/opencv-doc/examples/data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out/aloe" "$out/motorcycle"

if [ -f "$opencv/aloeGT.png" ]; then
    cp "$opencv/aloeL.jpg" "$opencv/aloeR.jpg" "$opencv/aloeGT.png" "$out/aloe/"
    cat >"$out/aloe/scene.json" <<JSON
{"name": "aloe (Middlebury 2006, opencv-doc)", "left": "aloeL.jpg", "right": "aloeR.jpg",
 "truth": "aloeGT.png", "scale": 1, "range": 224}
JSON
else
    echo "stereo-scenes: $opencv/aloeGT.png missing (apt-get install opencv-doc); no aloe scene" >&2
fi

# python3-skimage is only unpacked here, not installed.
(cd "$work" && apt-get download python3-skimage >/dev/null 2>&1) || {
    echo "stereo-scenes: apt-get download python3-skimage failed; no motorcycle scene" >&2
    exit 0
}
dpkg-deb -x "$work"/python3-skimage_*.deb "$work/x"
data="$work/x/usr/lib/python3/dist-packages/skimage/data"
cp "$data/motorcycle_left.png" "$data/motorcycle_right.png" "$out/motorcycle/"
cp "$work"/x/usr/share/doc/python3-skimage/copyright "$out/motorcycle/skimage-copyright"
# The truth is a float array with inf where unknown: written as a 16-bit PNG
# of disparity x 256 (0 = unknown) through a PFM that vips reads.
/usr/bin/python3 - "$data/motorcycle_disp.npz" "$work/disp.pfm" <<'PY'
import sys, numpy
disparity = numpy.load(sys.argv[1])["arr_0"].astype("<f4")
disparity[~numpy.isfinite(disparity)] = 0
height, width = disparity.shape
with open(sys.argv[2], "wb") as pfm:
    pfm.write(b"Pf\n%d %d\n-1.0\n" % (width, height))
    pfm.write(disparity.tobytes())  # vips reads PFM rows top-down
PY
vips linear "$work/disp.pfm" "$work/scaled.v" 256 0.5
vips copy "$work/scaled.v" "$work/grey.v" --interpretation grey16
vips cast "$work/grey.v" "$work/cast.v" ushort
vips pngsave "$work/cast.v" "$out/motorcycle/disp256.png" --bitdepth 16
cat >"$out/motorcycle/scene.json" <<JSON
{"name": "motorcycle (Middlebury 2014, skimage)", "left": "motorcycle_left.png", "right": "motorcycle_right.png",
 "truth": "disp256.png", "scale": 256, "range": 64}
JSON
echo "stereo-scenes: wrote $out/aloe and $out/motorcycle"
