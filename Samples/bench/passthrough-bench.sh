#!/usr/bin/env bash
# Passthrough benchmark: 12 MP HEICs with a face (OpenCV's messi5.jpg and, when
# ../shared is beside the checkout, LaPa and two FASSEG faces, upscaled to
# 4032x3024 or 3024x4032 and written as HEIC by Mattebox) get portrait and
# semantic mattes added, once as Mattebox does by default (the unchanged
# primary copied as coded) and once with --reencode (everything encoded
# again). One worker; encode time from `process --report`, wall time and
# peak memory from /usr/bin/time, and the file sizes.
# Usage: passthrough-bench.sh MATTEBOX_BINARY WORK_DIR TABLE_FILE
set -euo pipefail
mattebox=$1
work=$2
table=$3
repo=$(cd "$(dirname "$0")/../.." && pwd)
shared="$repo/../shared"
opencv=/usr/share/doc/opencv-doc/examples/data
rm -rf "$work" && mkdir -p "$work/jpeg" "$work/heic"
work=$(cd "$work" && pwd)

vips thumbnail "$opencv/messi5.jpg" "$work/jpeg/messi5.jpg[Q=92]" 4032 --height 3024 --size force --crop centre
if [ -d "$shared/eval/faceparsing" ]; then
    vips thumbnail "$shared/eval/faceparsing/lapa_sample/image.jpg" "$work/jpeg/lapa.jpg[Q=92]" 3024 --height 4032 --size force --crop centre
    for n in 3 8; do
        vips thumbnail "$shared/eval/faceparsing/fasseg_frontal02/rgb/$n.bmp" "$work/jpeg/fasseg-$n.jpg[Q=92]" 3024 --height 4032 --size force --crop centre
    done
fi
"$mattebox" process "$work/jpeg" -o "$work/heic" --format heic > /dev/null
cat > "$work/mattes.yaml" <<YAML
stages:
  - plugin: org.mattebox.portrait-matte
  - plugin: org.mattebox.semantic-mattes
YAML

summary() { python3 - "$@" <<'PY'
import json, os, sys
report, folder, inputs = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
photos = [p for p in report["photos"] if p["status"] == "ok"]
encode = sum(p["encodeSeconds"] for p in photos) / len(photos)
size_in = sum(os.path.getsize(p["input"]) for p in photos)
size_out = sum(os.path.getsize(p["output"]) for p in photos)
print(f"{encode:.2f} | {size_in / 1e6:.2f} | {size_out / 1e6:.2f}")
PY
}
{
    echo "| mode | wall s (all photos) | peak MiB | encode s per photo | input MB | output MB |"
    echo "|---|---|---|---|---|---|"
} > "$table"
for mode in copy reencode; do
    flag=""
    [ "$mode" = reencode ] && flag="--reencode"
    /usr/bin/time -f "%e %M" -o "$work/time-$mode" "$mattebox" process "$work/heic" -o "$work/out-$mode" \
        --pipeline "$work/mattes.yaml" -j 1 --report "$work/report-$mode.json" $flag > /dev/null
    read -r wall peak < "$work/time-$mode"
    echo "| $mode | $wall | $((peak / 1024)) | $(summary "$work/report-$mode.json" "$work/out-$mode" "$work/heic") |" >> "$table"
done
if [ -d "$shared/heic-samples" ]; then
    {
        echo
        echo "iPhone HEICs through the portrait-mattes pipeline (mattes, Orientation, HEIF), one worker:"
        echo
        echo "| file | input MB | copy s | copy MB | reencode s | reencode MB |"
        echo "|---|---|---|---|---|---|"
    } >> "$table"
    for f in "$shared"/heic-samples/*.heic "$shared"/heic-samples/*.HEIC; do
        [ -f "$f" ] || continue
        row="| $(basename "$f") | $(python3 -c "import os,sys; print(f'{os.path.getsize(sys.argv[1])/1e6:.2f}')" "$f")"
        for mode in copy reencode; do
            flag=""
            [ "$mode" = reencode ] && flag="--reencode"
            out="$work/iphone-$mode"
            /usr/bin/time -f "%e" -o "$work/t" "$mattebox" process "$f" -o "$out" --pipeline portrait-mattes -j 1 --overwrite $flag > /dev/null 2>&1
            written=$(ls -t "$out"/*.heic | head -1)
            row="$row | $(cat "$work/t") | $(python3 -c "import os,sys; print(f'{os.path.getsize(sys.argv[1])/1e6:.2f}')" "$written")"
        done
        echo "$row |" >> "$table"
    done
fi
echo
echo "Adding portrait and semantic mattes to $(ls "$work/heic" | grep -c heic) 12 MP HEICs, one worker, $(nproc) cores:"
cat "$table"
