#!/bin/sh
# Puts the sky labels made for four opencv-doc photos (Samples/eval/sky-labels,
# see its README) beside their photos, in the layout `mattebox evaluate --sky`
# reads: OUT/images/NAME.jpg and OUT/labels/NAME.png.
# Usage: Samples/eval/sky-photos.sh OUT
set -eu
out=${1:?usage: sky-photos.sh OUT}
opencv=/usr/share/doc/opencv-doc/examples/data
labels=$(cd "$(dirname "$0")" && pwd)/sky-labels
mkdir -p "$out/images" "$out/labels"
for name in home leuvenA leuvenB building; do
    if [ ! -f "$opencv/$name.jpg" ]; then
        echo "sky-photos: $opencv/$name.jpg missing (apt-get install opencv-doc)" >&2
        exit 1
    fi
    cp "$opencv/$name.jpg" "$out/images/"
    cp "$labels/$name.png" "$out/labels/"
done
