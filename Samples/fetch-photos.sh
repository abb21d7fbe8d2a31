#!/usr/bin/env bash
# Fetches real photos for trying Mattebox from Debian's opencv-doc package
# (it ships OpenCV's sample data): portraits, the Aloe stereo pair with its
# ground-truth disparity, and the left01..14/right01..14 chessboard pairs for
# stereo calibration. Usage: Samples/fetch-photos.sh [DEST] (default Samples/photos/real).
set -euo pipefail
dest=${1:-"$(dirname "$0")/photos/real"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
if ! apt-get download opencv-doc >/dev/null 2>&1; then
    echo "apt-get download opencv-doc failed; run 'sudo apt-get update' first" >&2
    exit 1
fi
dpkg-deb -x opencv-doc_*.deb extracted
data=extracted/usr/share/doc/opencv-doc/examples/data
mkdir -p "$dest/portraits" "$dest/stereo" "$dest/calibration"
for name in lena.jpg messi5.jpg baboon.jpg fruits.jpg home.jpg; do
    [ -f "$data/$name" ] && cp "$data/$name" "$dest/portraits/"
done
for name in aloeL.jpg aloeR.jpg aloeGT.png; do cp "$data/$name" "$dest/stereo/"; done
cp "$data"/left[0-9][0-9].jpg "$data"/right[0-9][0-9].jpg "$dest/calibration/"
echo "Fetched $(find "$dest" -type f | wc -l) photos into $dest"
