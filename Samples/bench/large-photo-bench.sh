#!/usr/bin/env bash
# Memory and time for a 200 MP photo (16320x12240, a synthetic gradient with
# sensor-like grain, written as HEIC by libvips): decoded, run through the
# portrait-mattes pipeline (faces looked for, sky matte, HEIF out) in one
# worker. Peak is the summed resident memory of the process tree (measure.py).
# Usage: large-photo-bench.sh MATTEBOX_BINARY WORK_DIR TABLE_FILE
set -euo pipefail
mattebox=$(realpath "$1")
work=$2
table=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
cd "$work"
vips xyz xy.v 16320 12240
vips extract_band xy.v x.v 0
vips extract_band xy.v y.v 1
vips linear x.v r.v 0.01 20 --uchar
vips linear y.v g.v 0.015 30 --uchar
vips gaussnoise n.v 16320 12240 --mean 110 --sigma 4
vips cast n.v b.v uchar
vips bandjoin "r.v g.v b.v" rgb.v
vips heifsave rgb.v large.heic --Q 50 --effort 0
rm -f ./*.v
{
    echo "| 200 MP HEIC ($(du -k large.heic | cut -f1) KiB), one worker | wall s | CPU s | peak MiB |"
    echo "|---|---|---|---|"
    for pipeline in upright portrait-mattes; do
        rm -rf out
        read -r wall cpu peak < <(python3 "$here/measure.py" "$mattebox" process large.heic -o out -j 1 --format heic --pipeline "$pipeline")
        echo "| --pipeline $pipeline | $wall | $cpu | $peak |"
    done
} > "$table"
cat "$table"
