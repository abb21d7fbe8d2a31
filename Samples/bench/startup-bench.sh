#!/usr/bin/env bash
# Startup and one-photo benchmark (issue: plugin registry cache, no per-command rescans):
#   - `mattebox plugins list` with a cold and a warm registry cache;
#   - one 1600x1200 JPEG to HEIC with `mattebox process` against `heif-enc` at the same
#     quality (75) and x265 preset (fast), with and without heif-enc's thumbnail;
#   - 14 such photos: `mattebox process -j 1` and `-j 2` against heif-enc over the same files.
# Times are the median of several runs (wall seconds); the table goes to TABLE_FILE.
# Usage: startup-bench.sh MATTEBOX_BINARY WORK_DIR TABLE_FILE
set -euo pipefail
mattebox=$1
work=$2
table=$3
opencv=/usr/share/doc/opencv-doc/examples/data
mkdir -p "$work"
work=$(cd "$work" && pwd)
export XDG_CACHE_HOME="$work/cache"

median() {  # runs "$@" N times, prints the median wall seconds
    python3 - "$@" <<'PY'
import statistics, subprocess, sys, time
runs = []
for _ in range(int(sys.argv[1])):
    start = time.perf_counter()
    subprocess.run(sys.argv[2], shell=True, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    runs.append(time.perf_counter() - start)
print(f"{statistics.median(runs):.3f}")
PY
}

echo "== inputs: 14 photos of 1600x1200 from opencv-doc's samples"
rm -rf "$work/in" && mkdir -p "$work/in"
n=0
for f in messi5.jpg lena.jpg baboon.jpg fruits.jpg building.jpg home.jpg aloeL.jpg aloeR.jpg \
         left01.jpg right01.jpg starry_night.jpg apple.jpg orange.jpg graf1.png; do
    [ -f "$opencv/$f" ] || continue
    n=$((n + 1))
    vips thumbnail "$opencv/$f" "$work/in/photo-$n.jpg[Q=92]" 1600 --height 1200 --size force --crop centre
    [ "$n" -ge 14 ] && break
done
while [ "$n" -lt 14 ]; do n=$((n + 1)); vips flip "$work/in/photo-1.jpg" "$work/in/photo-$n.jpg[Q=92]" horizontal; done
one="$work/in/photo-1.jpg"

rm -rf "$XDG_CACHE_HOME"
cold=$(median 1 "$mattebox plugins list")
warm=$(median 7 "$mattebox plugins list")
echo "plugins list: cold $cold s, warm $warm s"

single=$(median 5 "rm -rf '$work/o1' && $mattebox process '$one' -o '$work/o1' --format heic --quality 75")
encoder=$(median 5 "heif-enc -q 75 -p preset=fast '$one' -o '$work/h1.heic'")
encoder_thumb=$(median 5 "heif-enc -q 75 -p preset=fast -t 320 '$one' -o '$work/h1t.heic'")
echo "one photo: mattebox $single s, heif-enc $encoder s (with thumbnail $encoder_thumb s)"

batch1=$(median 3 "rm -rf '$work/ob' && $mattebox process '$work/in' -o '$work/ob' --format heic --quality 75 -j 1")
batch2=$(median 3 "rm -rf '$work/ob' && $mattebox process '$work/in' -o '$work/ob' --format heic --quality 75 -j 2")
loop=$(median 3 "for f in '$work'/in/*.jpg; do heif-enc -q 75 -p preset=fast -t 320 \"\$f\" -o '$work'/hb.heic; done")
echo "14 photos: mattebox -j 1 $batch1 s, -j 2 $batch2 s, heif-enc loop $loop s"

ratio() { python3 -c "print(f'{$1 / $2:.2f}x')"; }
{
    echo "# Startup and one-photo timings ($(date -u +%Y-%m-%d), $(nproc) cores, release build)"
    echo
    echo "| what | mattebox | heif-enc (q 75, preset fast) | ratio |"
    echo "|---|---|---|---|"
    echo "| plugins list, cold cache | $cold s | | |"
    echo "| plugins list, warm cache | $warm s | | target ≤ 0.1 s |"
    echo "| one 1600x1200 JPEG → HEIC | $single s | $encoder s ($encoder_thumb s with a 320 px thumbnail) | $(ratio "$single" "$encoder_thumb") of heif-enc with thumbnail, $(ratio "$single" "$encoder") without |"
    echo "| 14 photos, -j 1 | $batch1 s | $loop s (one after another, with thumbnails) | $(ratio "$batch1" "$loop") |"
    echo "| 14 photos, -j 2 | $batch2 s | | $(ratio "$batch2" "$loop") |"
    echo
    echo "mattebox runs the default pipeline (turn upright) and writes a 320 px thumbnail, as iPhones do."
} > "$table"
cat "$table"
