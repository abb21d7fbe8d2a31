#!/usr/bin/env bash
# The mattes at scale (issue targets): four 12 MP portraits through the
# portrait matte, the semantic mattes and HEIF (quality 75, x265 preset fast)
# at -j 1, 2 and 4, against the codec floor `heif-enc -q 75 -p preset=fast`
# on the same photos, one at a time. Wall time, CPU seconds and the peak of
# the whole process tree's resident memory (Samples/bench/measure.py).
# Inputs: the LaPa face and FASSEG faces 1, 3 and 5 from ../shared, upscaled
# to 3024x4032; without ../shared, opencv-doc's messi5 upscaled to 4032x3024
# and three mirrored or cropped copies of it.
# Usage: mattes-bench.sh MATTEBOX_BINARY WORK_DIR TABLE_FILE
source "$(dirname "$0")/common.sh"
inputs="$work/inputs"
rm -rf "$inputs" "$work/out" && mkdir -p "$inputs" "$work/out"

if [ -d "$shared/eval/faceparsing" ]; then
    vips thumbnail "$shared/eval/faceparsing/lapa_sample/image.jpg" "$inputs/lapa.jpg[Q=92]" 3024 --height 4032 --size force --crop centre
    for n in 1 3 5; do
        vips thumbnail "$shared/eval/faceparsing/fasseg_frontal02/rgb/$n.bmp" "$inputs/fasseg-$n.jpg[Q=92]" 3024 --height 4032 --size force --crop centre
    done
else
    vips thumbnail "$opencv/messi5.jpg" "$inputs/messi5.jpg[Q=92]" 4032 --height 3024 --size force --crop centre
    vips flip "$inputs/messi5.jpg" "$inputs/messi5-flipped.jpg[Q=92]" horizontal
    vips thumbnail "$opencv/messi5.jpg" "$inputs/messi5-tall.jpg[Q=92]" 3024 --height 4032 --size force --crop centre
    vips flip "$inputs/messi5-tall.jpg" "$inputs/messi5-tall-flipped.jpg[Q=92]" horizontal
fi
photos=("$inputs"/*.jpg)
cat > "$work/mattes.yaml" <<'YAML'
stages:
  - plugin: org.mattebox.portrait-matte
  - plugin: org.mattebox.semantic-mattes
  - plugin: org.mattebox.heif
    params: { quality: 75, preset: fast }
YAML

echo "== codec floor: heif-enc, one photo at a time"
read -r floor_wall floor_cpu floor_peak < <($measure bash -c '
    for f in "$@"; do heif-enc -q 75 -p preset=fast -o "'"$work/out/floor"'-$(basename "${f%.*}").heic" "$f" > /dev/null; done' _ "${photos[@]}")
{
    echo "| run | wall s | x heif-enc wall | CPU s | x heif-enc CPU | peak MiB |"
    echo "|---|---|---|---|---|---|"
    printf "| heif-enc -q 75 -p preset=fast (primary only) | %.2f | 1.00 | %.2f | 1.00 | %d |\n" "$floor_wall" "$floor_cpu" "$floor_peak"
} > "$table"
for jobs in 1 2 4; do
    echo "== mattebox -j $jobs"
    rm -rf "$work/out/j$jobs"
    read -r wall cpu peak < <($measure "$mattebox" process "${photos[@]}" -o "$work/out/j$jobs" --pipeline "$work/mattes.yaml" \
        -j "$jobs" -q --report "$work/out/j$jobs.json")
    awk -v j="$jobs" -v w="$wall" -v c="$cpu" -v p="$peak" -v fw="$floor_wall" -v fc="$floor_cpu" \
        'BEGIN { printf "| mattebox portrait + semantic mattes + HEIF, -j %d | %.2f | %.2f | %.2f | %.2f | %d |\n", j, w, w / fw, c, c / fc, p }' >> "$table"
done
echo "" >> "$table"
echo "${#photos[@]} photos: $(cd "$inputs" && ls | tr '\n' ' '); $(nproc) cores" >> "$table"
cat "$table"
