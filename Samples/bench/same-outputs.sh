#!/usr/bin/env bash
# Whether two builds write the same bytes: the checks a change that should move no pixel (a
# refactor, a house pass) passes before it lands. Runs each build over the bundled photos and, when
# ../shared is beside the checkout, the iPhone and phone-depth samples: orientation, the
# portrait-mattes pipeline, AVIF and Ultra HDR JPEG outputs, the mirrored selfie, and four renders
# (an iPhone Portrait HEIC with its gain map, a Lens Blur JPEG, a cut-out PNG, an Android depth photo
# at f/1.4). Prints each output's sha256 for both builds and exits 1 when any differs.
# Usage: same-outputs.sh MATTEBOX_A MATTEBOX_B WORK_DIR
set -euo pipefail
a=$1 b=$2 work=$3
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
shared="$repo/../shared"
photos="$repo/Samples/photos"

outputs() {  # binary, folder: every case into its own subfolder, then the outputs' sha256 sums
    local bin=$1 out=$2
    rm -rf "$out" && mkdir -p "$out"
    "$bin" process "$photos"/orientation-*.jpg -o "$out/orient" -q -j 2
    "$bin" process "$photos/selfie-front.jpg" --pipeline selfie-mirrored -o "$out/selfie" -q
    if [ -d "$shared/heic-samples" ]; then
        local heic="$shared/heic-samples" depth="$shared/depth-samples"
        "$bin" process "$heic/pillow_heif__pug.heic" "$depth/fidmaa__portrait-analyser__heic_face_data.heic" \
            --pipeline portrait-mattes -o "$out/mattes" -q -j 1
        "$bin" process "$heic/openize__iphone_rotated_and_mirrored.heic" --format avif -o "$out/avif" -q
        "$bin" process "$heic/exif-samples__iphone_13_pro_max.HEIC" --format jpeg -o "$out/jpeg" -q
        "$bin" render "$heic/pillow_heif__pug.heic" --aperture 2.8 -o "$out/render-pug" -q
        "$bin" render "$depth/spite__depth-player__greek-helmet.jpg" -o "$out/render-lens-blur" -q
        "$bin" render "$depth/fidmaa__portrait-analyser__heic_face_data.heic" --background transparent --format png \
            -o "$out/render-cutout" -q
        "$bin" render "$depth/drewnoakes__metadata-extractor-images__Android_Depth_Map.jpg" --aperture 1.4 \
            -o "$out/render-android" -q
    else
        echo "(no ../shared beside the checkout: the bundled photos only)" >&2
    fi
    (cd "$out" && find . -type f ! -name '.mattebox-manifest*' | sort | xargs sha256sum)
}

mkdir -p "$work"
outputs "$a" "$work/a" > "$work/a.sha256"
outputs "$b" "$work/b" > "$work/b.sha256"
if diff "$work/a.sha256" "$work/b.sha256"; then
    echo "same bytes: $(wc -l < "$work/a.sha256") outputs"
else
    echo "the outputs above differ (< $a, > $b)"
    exit 1
fi
