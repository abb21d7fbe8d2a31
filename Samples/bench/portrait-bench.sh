#!/usr/bin/env bash
# Portrait effect timings (the portrait-effect stage alone, from `process
# --report`, one worker) on 12 MP photos at the default settings (f/4.5):
#  - messi5 (opencv-doc) upscaled to 4032x3024, with its portrait matte
#    (made by the portrait-matte stage, not timed) and no depth: the
#    layered estimate;
#  - the same with a disparity sidecar made from the matte and a left-right
#    ramp (depth + matte: far, subject and near layers);
#  - the iPhone Portrait HEIC from ../shared (3024x4032, its own disparity,
#    no matte), when ../shared is beside the checkout;
# and the camera app's re-render at 1280 px (GET /api/library/ID/portrait.jpg,
# median of 10 apertures after a first request that decodes the photo).
# Usage: portrait-bench.sh MATTEBOX_BINARY WORK_DIR TABLE_FILE
source "$(dirname "$0")/common.sh"
rm -rf "$work/in" "$work/out" && mkdir -p "$work/in"

echo "== 12 MP inputs in $work/in"
vips thumbnail "$opencv/messi5.jpg" "$work/in/messi12.jpg[Q=92]" 4032 --height 3024 --size force --crop centre
cat > "$work/matte.yaml" <<EOF
stages:
  - plugin: org.mattebox.portrait-matte
    params: { scale: 1 }
  - plugin: org.mattebox.heif
EOF
"$mattebox" process "$work/in/messi12.jpg" -o "$work/matted" --pipeline "$work/matte.yaml" --aux-png -q > /dev/null
cp "$work/in/messi12.jpg" "$work/in/messi12-depth.jpg"
cp "$work/matted/messi12.portraitMatte.png" "$work/in/messi12-depth.portraitMatte.png"
# Disparity: the subject near (the matte), the rest a ramp from far (left) to nearer (right).
vips black "$work/ramp.v" 4032 3024
vips xyz "$work/xy.v" 4032 3024
vips extract_band "$work/xy.v" "$work/x.v" 0
vips linear "$work/x.v" "$work/ramp.v" 0.03 0 --uchar
vips linear "$work/in/messi12-depth.portraitMatte.png" "$work/subject.v" 1 0
vips boolean "$work/ramp.v" "$work/subject.v" "$work/disparity.v" or
vips copy "$work/disparity.v" "$work/in/messi12-depth.disparity.png"
cp "$work/matted/messi12.portraitMatte.png" "$work/in/messi12.portraitMatte.png"
inputs=("$work/in/messi12.jpg" "$work/in/messi12-depth.jpg")
[ -f "$shared/heic-samples/openize__iphone_portrait_photo.heic" ] && inputs+=("$shared/heic-samples/openize__iphone_portrait_photo.heic")

cat > "$work/effect.yaml" <<EOF
stages:
  - plugin: org.mattebox.portrait-effect
EOF
{
    echo "| photo | what it has | portrait-effect s | peak RSS of the run MiB |"
    echo "|---|---|---|---|"
} > "$table"
for input in "${inputs[@]}"; do
    name=$(basename "$input")
    case $name in
        messi12.jpg) has="matte (layered estimate)" ;;
        messi12-depth.jpg) has="matte + disparity" ;;
        *) has="its own disparity (iPhone)" ;;
    esac
    /usr/bin/time -f "%M" -o "$work/rss" "$mattebox" process "$input" -o "$work/out" --pipeline "$work/effect.yaml" \
        -j 1 --format jpeg --overwrite --report "$work/report.json" -q > /dev/null
    seconds=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('%.2f' % [s['seconds'] for s in d['photos'][0]['stages'] if s['plugin']=='org.mattebox.portrait-effect'][0])" "$work/report.json")
    echo "| $name | $has | $seconds | $(( $(cat "$work/rss") / 1024 )) |" >> "$table"
done

echo "== the camera app's re-render at 1280 px"
library="$work/library"
rm -rf "$library" && mkdir -p "$library"
cp "$work/matted/messi12.heic" "$library/"
"$mattebox" serve --library "$library" --listen 127.0.0.1:0 --cameras "$repo/Samples/cameras.yaml" --pipeline upright \
    > "$work/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -qo 'http://127.0.0.1:[0-9]*' "$work/serve.log" && break; sleep 0.1; done
url=$(grep -o 'http://127.0.0.1:[0-9]*' "$work/serve.log" | head -1)
# The Portrait routes need the app's token even on loopback (the page carries it in a meta tag).
token=$(curl -sf "$url/" | grep -o 'content="[0-9a-f]\{48\}"' | head -1 | tr -d '"' | sed 's/content=//')
[ -n "$token" ] || { echo "portrait-bench: no app token on $url/" >&2; exit 1; }
curl -sf -o /dev/null -H "X-Mattebox-Token: $token" "$url/api/library/messi12.heic/portrait.jpg?size=1280&aperture=4.5"
times=()
for aperture in 1.4 2 2.8 3.5 4.5 5.6 7.1 8 11 16; do
    times+=("$(curl -sf -o /dev/null -H "X-Mattebox-Token: $token" -w '%{time_total}' "$url/api/library/messi12.heic/portrait.jpg?size=1280&aperture=$aperture")")
done
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 5p)
echo "" >> "$table"
echo "Camera app re-render at 1280 px (messi12.heic with its matte): median $(python3 -c "print(round(float('$median')*1000))") ms over 10 apertures." >> "$table"
cat "$table"
