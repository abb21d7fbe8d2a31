#!/usr/bin/env bash
# HEIF benchmark: a 12 MP photo (4032x3024) with a 768x576 depth map and three
# 2016x1512 mattes, as an iPhone portrait has. Measures `mattebox export`,
# `mattebox inspect`, reading it back and rewriting it through the HEIF
# packaging pipeline, with wall time, peak memory and file sizes.
# Usage: heif-bench.sh MATTEBOX_BINARY [WORK_DIR]
set -euo pipefail
mattebox=$1
work=${2:-$(mktemp -d)}
repo=$(cd "$(dirname "$0")/../.." && pwd)
pug="$repo/../shared/heic-samples/pillow_heif__pug.heic"
mkdir -p "$work"
cd "$work"

echo "== making a 12 MP test photo with depth and mattes in $work"
# A photo-like picture: smooth gradients plus fine sensor-like grain.
vips xyz xy.v 4032 3024
vips extract_band xy.v x.v 0
vips extract_band xy.v y.v 1
vips linear x.v r.v 0.05 20 --uchar
vips linear y.v g.v 0.07 30 --uchar
vips gaussnoise noise.v 4032 3024 --mean 110 --sigma 4
vips cast noise.v b.v uchar
vips bandjoin "r.v g.v b.v" photo.v
vips copy photo.v photo.jpg[Q=92]
# Depth in millimetres (a near disc on a far wall) and mattes of the disc.
vips xyz dxy.v 768 576
vips extract_band dxy.v dx.v 0
vips linear dx.v depth-wall.v 2 1500
vips cast depth-wall.v depth.v ushort
vips copy depth.v depth.png
vips black m.v 2016 1512
vips draw_circle m.v 255 1008 756 500 --fill
vips copy m.v matte.png

measure() {  # label, then the command; prints wall seconds and peak RSS
  local label=$1; shift
  /usr/bin/time -f "%e %M" -o time.txt "$@" > /dev/null
  read -r seconds kb < time.txt
  printf "%-44s %7.2f s  %6d MB peak\n" "$label" "$seconds" $((kb / 1024))
}

echo "== results"
for preset in ultrafast fast slow; do
  measure "export 12 MP + depth + 3 mattes ($preset)" \
    "$mattebox" export photo.jpg -o "portrait-$preset.heic" --depth depth.png --portrait-matte matte.png \
      --matte hair=matte.png --matte skin=matte.png --preset "$preset"
  printf "%-44s %7d bytes\n" "  file size ($preset, quality 75, the default)" "$(stat -c %s "portrait-$preset.heic")"
done
printf "%-44s %7d bytes\n" "  source JPEG (Q92, no auxiliary images)" "$(stat -c %s photo.jpg)"
measure "inspect (boxes only)" "$mattebox" inspect portrait-fast.heic
measure "inspect --sheet (decodes everything)" "$mattebox" inspect portrait-fast.heic --sheet sheet.png
cat > package.yaml <<'YAML'
stages:
  - plugin: org.mattebox.heif
YAML
measure "process: read + rewrite via HEIF plugin (fast)" \
  "$mattebox" process portrait-fast.heic -o rewritten --pipeline package.yaml
"$mattebox" inspect rewritten/portrait-fast.heic | grep -E "primary|auxiliary images|libheif"
if [ -f "$pug" ]; then
  echo "== a real iPhone 13 Pro portrait HEIC (48-tile grid, disparity, gain map)"
  measure "process: read + rewrite pug.heic (fast)" "$mattebox" process "$pug" -o rewritten --pipeline package.yaml
  printf "%-44s %7d bytes\n" "  original" "$(stat -c %s "$pug")"
  printf "%-44s %7d bytes\n" "  rewritten (quality 75, the default, fast)" "$(stat -c %s rewritten/pillow_heif__pug.heic)"
fi
