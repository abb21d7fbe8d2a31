#!/usr/bin/env bash
# Time per photo of each vision plugin at 12 MP, for each effort (speed,
# balanced, quality): PortraitMatte, SemanticMattes (given the portrait
# matte, as in a pipeline), and Depth from a stereo pair (matched at the
# long side each quality uses: 512, 768, 1024 px). One worker (-j 1),
# stage times from `process --report`; the table gives the median over the
# photos; the semantic mattes by default (the face parser when installed),
# by the classical method with the face mesh (model: none) and laid out on
# the face's box (model: none, landmarks: none). Inputs: OpenCV's messi5.jpg and, when ../shared is beside the
# checkout, LaPa and four FASSEG faces, all upscaled to 4032x3024 or
# 3024x4032 (no 12 MP face photo ships in a Debian package); OpenCV's aloe
# stereo pair upscaled to 4032x3496.
# Usage: plugin-bench.sh MATTEBOX_BINARY WORK_DIR TABLE_FILE
source "$(dirname "$0")/common.sh"
faces="$work/faces" stereo="$work/stereo"
rm -rf "$faces" "$stereo" && mkdir -p "$faces" "$stereo"

echo "== 12 MP inputs in $work"
vips thumbnail "$opencv/messi5.jpg" "$faces/messi5.jpg[Q=92]" 4032 --height 3024 --size force --crop centre
if [ -d "$shared/eval/faceparsing" ]; then
    vips thumbnail "$shared/eval/faceparsing/lapa_sample/image.jpg" "$faces/lapa.jpg[Q=92]" 3024 --height 4032 --size force --crop centre
    for n in 1 3 5 8; do
        vips thumbnail "$shared/eval/faceparsing/fasseg_frontal02/rgb/$n.bmp" "$faces/fasseg-$n.jpg[Q=92]" 3024 --height 4032 --size force --crop centre
    done
fi
vips resize "$opencv/aloeL.jpg" "$stereo/aloe.png" 3.1453
vips resize "$opencv/aloeR.jpg" "$stereo/aloe-right.png" 3.1453

median() { python3 -c "import json,statistics,sys
d=json.load(open(sys.argv[1]))
s=[st['seconds'] for p in d['photos'] for st in p.get('stages',[]) if st['plugin']==sys.argv[2] and st['status']=='ok']
print(f'{statistics.median(s):.2f} ({len(s)})' if s else 'n/a')" "$@"; }

{
    echo "| effort | portrait matte s | semantic mattes s (default: face parser when installed) | semantic mattes s (classical, face mesh) | semantic mattes s (classical, box layout) | depth (stereo) s |"
    echo "|---|---|---|---|---|---|"
} > "$table"
for effort in speed balanced quality; do
    case $effort in speed) long=512 ;; balanced) long=768 ;; quality) long=1024 ;; esac
    echo "== effort $effort (stereo at $long px)"
    # The semantic mattes after the portrait matte: by default, classical with the face mesh, classical on the box.
    for run in "mattes:" "classical:, model: none" "layout:, model: none, landmarks: none"; do
        printf 'stages:\n  - plugin: org.mattebox.portrait-matte\n    params: { effort: %s }\n  - plugin: org.mattebox.semantic-mattes\n    params: { effort: %s%s }\n' \
            "$effort" "$effort" "${run#*:}" > "$work/${run%%:*}.yaml"
    done
    cat > "$work/depth.yaml" <<EOF
stages:
  - plugin: org.mattebox.depth
    params: { long-side: $long }
EOF
    "$mattebox" process "$faces" -o "$work/out-$effort" --pipeline "$work/mattes.yaml" -j 1 --report "$work/mattes-$effort.json" > /dev/null
    "$mattebox" process "$faces" -o "$work/classical-$effort" --pipeline "$work/classical.yaml" -j 1 --report "$work/classical-$effort.json" > /dev/null
    "$mattebox" process "$faces" -o "$work/layout-$effort" --pipeline "$work/layout.yaml" -j 1 --report "$work/layout-$effort.json" > /dev/null
    "$mattebox" process "$stereo/aloe.png" --aux "org.mattebox.stereo-right=$stereo/aloe-right.png" -o "$work/out-$effort" \
        --pipeline "$work/depth.yaml" -j 1 --report "$work/depth-$effort.json" > /dev/null
    echo "| $effort | $(median "$work/mattes-$effort.json" org.mattebox.portrait-matte) | $(median "$work/mattes-$effort.json" org.mattebox.semantic-mattes) | $(median "$work/classical-$effort.json" org.mattebox.semantic-mattes) | $(median "$work/layout-$effort.json" org.mattebox.semantic-mattes) | $(median "$work/depth-$effort.json" org.mattebox.depth) |" >> "$table"
done
method=$(python3 -c "import json,sys
d=json.load(open(sys.argv[1]))
print(sorted({p.get('notes',{}).get('portraitMatteMethod','none') + '; parts: ' + p.get('notes',{}).get('semanticMattesMethod','none') for p in d['photos']}))" "$work/mattes-balanced.json")
echo "" >> "$table"
echo "Portrait matte method: $method" >> "$table"
# A photo with no face: the salient subject a render asks for (U²-Net-p; without-face: salient), on the iPhone
# photos of a glass and a pug when ../shared is here, else on opencv-doc's fruits.
if "$mattebox" models list --json | python3 -c 'import json,sys; sys.exit(0 if any(m["name"] == "u2netp" and m["path"] for m in json.load(sys.stdin)["models"]) else 1)'; then
    things=("$opencv/fruits.jpg")
    [ -d "$shared/heic-samples" ] && things=("$shared/heic-samples/openize__iphone_portrait_photo.heic" "$shared/heic-samples/pillow_heif__pug.heic")
    printf 'stages:\n  - plugin: org.mattebox.portrait-matte\n    params: { without-face: salient }\n' > "$work/salient.yaml"
    "$mattebox" process "${things[@]}" -o "$work/salient" --format png --pipeline "$work/salient.yaml" -j 1 --report "$work/salient.json" > /dev/null
    echo "" >> "$table"
    echo "Salient subject (no face; portrait-matte with without-face: salient, $(basename -a "${things[@]}" | tr '\n' ' ')): $(median "$work/salient.json" org.mattebox.portrait-matte) s" >> "$table"
else
    echo "" >> "$table"
    echo "Salient subject: not measured (mattebox models install u2netp)" >> "$table"
fi
echo
echo "Seconds per 12 MP photo, median (photos), one worker, $(nproc) cores:"
cat "$table"
