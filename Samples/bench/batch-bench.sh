#!/usr/bin/env bash
# Batch benchmark: `mattebox process` against its peers on the same 12 MP
# photos in one run, at -j 1 and -j 2, with wall time, CPU seconds and peak
# memory of the whole process tree (Samples/bench/measure.py).
#   (a) orientation + HEIF export: mattebox, ImageMagick `convert`, and the
#       codec floor `heif-enc` (primary only, no orientation work);
#   (b) orientation + portrait/hair/skin/teeth mattes + HEIF with thumbnail:
#       mattebox, and a Python peer (opencv-python-headless + pillow-heif,
#       mattes as PNGs beside the HEIC since pillow-heif cannot store them).
# Every HEIF is written at quality 75 with x265 preset "fast" (ImageMagick
# cannot choose the preset: it gets libheif's default).
# Inputs: OpenCV's messi5.jpg and, when ../shared is beside the checkout, the
# LaPa and FASSEG faces (all upscaled to 12 MP: no 12 MP face photo ships in a
# Debian package) plus real iPhone HEICs.
# Usage: batch-bench.sh MATTEBOX_BINARY WORK_DIR TABLE_FILE
source "$(dirname "$0")/common.sh"
inputs="$work/inputs"
rm -rf "$inputs" && mkdir -p "$inputs/jpeg" "$inputs/heic" "$inputs/png-for-heif-enc"

echo "== 12 MP inputs in $inputs"
landscape() {  # source, name: scale to cover 4032x3024 and centre-crop
    vips thumbnail "$1" "$inputs/jpeg/$2.jpg[Q=92]" 4032 --height 3024 --size force --crop centre 2>/dev/null \
        || vips thumbnail "$1" "$inputs/jpeg/$2.jpg[Q=92]" 4032 --height 3024 --crop centre
}
portrait() {  # source, name: 3024x4032
    vips thumbnail "$1" "$inputs/jpeg/$2.jpg[Q=92]" 3024 --height 4032 --size force --crop centre 2>/dev/null \
        || vips thumbnail "$1" "$inputs/jpeg/$2.jpg[Q=92]" 3024 --height 4032 --crop centre
}
landscape "$opencv/messi5.jpg" messi5
if [ -d "$shared/eval/faceparsing" ]; then
    portrait "$shared/eval/faceparsing/lapa_sample/image.jpg" lapa
    for n in 1 3 5 8; do portrait "$shared/eval/faceparsing/fasseg_frontal02/rgb/$n.bmp" "fasseg-$n"; done
    for f in openize__iphone_portrait_photo.heic pillow_heif__pug.heic openize__iphone_rotated_and_mirrored.heic; do
        cp "$shared/heic-samples/$f" "$inputs/heic/"
    done
else
    echo "   (no ../shared: only messi5, flipped, as input)"
    vips flip "$inputs/jpeg/messi5.jpg" "$inputs/jpeg/messi5-flipped.jpg[Q=92]" horizontal
fi
for f in "$inputs"/jpeg/*.jpg; do ln -s "$f" "$inputs/png-for-heif-enc/"; done
for f in "$inputs"/heic/*; do
    [ -e "$f" ] && vips copy "$f" "$inputs/png-for-heif-enc/$(basename "${f%.*}").png"
done
count=$(find "$inputs/jpeg" "$inputs/heic" -type f | wc -l)
echo "   $count photos: $(ls "$inputs/jpeg" "$inputs/heic" | grep -c jpg) JPEG, $(ls "$inputs/heic" | wc -l) HEIC"

echo "== Python peer environment (opencv-python-headless, pillow-heif from PyPI)"
if ! "$work/venv/bin/python" -c "import cv2, pillow_heif; cv2.CascadeClassifier" 2>/dev/null; then
    [ -x "$work/venv/bin/python" ] || python3 -m venv "$work/venv"
    "$work/venv/bin/pip" install -q "opencv-python-headless<5" pillow-heif numpy  # 5.x dropped CascadeClassifier
fi

cat > "$work/a.yaml" <<'YAML'
stages:
  - plugin: org.mattebox.orientation
  - plugin: org.mattebox.heif
    params: { quality: 75, preset: fast, thumbnail-size: 320 }
YAML
cat > "$work/b.yaml" <<'YAML'
stages:
  - plugin: org.mattebox.portrait-matte
  - plugin: org.mattebox.semantic-mattes
  - plugin: org.mattebox.orientation
  - plugin: org.mattebox.heif
    params: { quality: 75, preset: fast, thumbnail-size: 320 }
YAML

# each.sh JOBS OUT 'SHELL COMMAND with $0 = OUT and $1 = FILE' FILE...: a peer's tool run per file, JOBS at once.
cat > "$work/each.sh" <<'SH'
#!/usr/bin/env bash
jobs=$1 out=$2 command=$3
shift 3
printf '%s\0' "$@" | xargs -0 -P "$jobs" -n 1 sh -c "$command > /dev/null" "$out"
SH
chmod +x "$work/each.sh"
all_inputs=("$inputs"/jpeg/* "$inputs"/heic/*)
floor_inputs=("$inputs"/png-for-heif-enc/*)
rows=()
run() {  # label, jobs, output dir, command...: measures one row
    local label=$1 jobs=$2 out=$3
    shift 3
    rm -rf "$out" && mkdir -p "$out"
    local status=0 result
    result=$($measure "$@" 2> "$out.log") || status=$?
    read -r wall cpu peak <<< "$result"
    local made
    made=$(find "$out" -name '*.heic' -size +0 | wc -l)
    local row
    row=$(awk -v l="$label" -v j="$jobs" -v n="$count" -v m="$made" -v w="$wall" -v c="$cpu" -v p="$peak" \
        'BEGIN { printf "| %s | %d | %d/%d | %.2f | %.2f | %.2f | %.1f | %d |", l, j, m, n, w, w / n, n / w, c, p }')
    echo "$row"
    rows+=("$row")
    [ "$status" = 0 ] || echo "   ($label exited $status; see $out.log)"
}

echo "== runs (label | jobs | HEIFs made | wall s | s/photo | photos/s | CPU s | peak MiB)"
for jobs in 1 2; do
    run "codec floor: heif-enc (primary only)" $jobs "$work/out/floor-$jobs" \
        "$work/each.sh" $jobs "$work/out/floor-$jobs" 'heif-enc -q 75 -p preset=fast -o "$0/$(basename "${1%.*}").heic" "$1"' \
        "${floor_inputs[@]}"
    run "(a) ImageMagick convert -auto-orient" $jobs "$work/out/magick-$jobs" \
        "$work/each.sh" $jobs "$work/out/magick-$jobs" 'convert "$1" -auto-orient -quality 75 "$0/$(basename "${1%.*}").heic"' \
        "${all_inputs[@]}"
    run "(a) mattebox orientation + HEIF" $jobs "$work/out/a-$jobs" \
        "$mattebox" process "${all_inputs[@]}" -o "$work/out/a-$jobs" --pipeline "$work/a.yaml" -j $jobs
    run "(b) mattebox mattes + HEIF" $jobs "$work/out/b-$jobs" \
        "$mattebox" process "${all_inputs[@]}" -o "$work/out/b-$jobs" --pipeline "$work/b.yaml" -j $jobs \
        --report "$work/out/b-$jobs.json"
    run "(b) Python opencv + pillow-heif" $jobs "$work/out/python-$jobs" \
        "$work/venv/bin/python" "$repo/Samples/bench/python_peer.py" --jobs $jobs --out "$work/out/python-$jobs" \
        "${all_inputs[@]}"
done

{
    echo "# Batch benchmark ($(date -u +%Y-%m-%d), $(nproc) cores, $count photos of 12 MP)"
    echo
    echo "| run | -j | HEIFs made | wall s | s/photo | photos/s | CPU s | peak MiB (tree) |"
    echo "|---|---|---|---|---|---|---|---|"
    printf "%s\n" "${rows[@]}"
    echo
    echo "Mattebox (b) per-stage mean seconds at -j 1 (from --report):"
    python3 - "$work/out/b-1.json" <<'PY'
import json, sys, collections
report = json.load(open(sys.argv[1]))
sums, counts = collections.defaultdict(float), collections.Counter()
for photo in report["photos"]:
    for name, seconds in [("decode", photo.get("decodeSeconds", 0)), ("encode+write", photo.get("encodeSeconds", 0))] + [
            (stage["plugin"], stage["seconds"]) for stage in photo.get("stages", [])]:
        sums[name] += seconds
        counts[name] += 1
for name in sums:
    print(f"- {name}: {sums[name] / counts[name]:.2f} s")
PY
} > "$table"
echo "== table written to $table"
cat "$table"
