#!/usr/bin/env bash
# The mattes at scale (issue targets): four 12 MP portraits through the
# portrait matte, the semantic mattes and HEIF (quality 75, x265 preset fast)
# at -j 1, 2 and 4, against the codec floor `heif-enc -q 75 -p preset=fast`
# on the same photos, one at a time. Wall time, CPU seconds and the peak of
# the whole process tree's memory, summed as RSS and as PSS (which counts the
# libraries all processes share once; Samples/bench/measure.py; PSS from a
# second, untimed run). Then each
# process's own peak at -j 2, and the worker's peak per step of one photo
# (decode, each stage, encode: `process --timings`).
# Last, twelve 1 MP photos made from the four (as many photos at once as cores), against
# heif-enc on the same twelve.
# Inputs: the LaPa face and FASSEG faces 1, 3 and 5 from ../shared, upscaled
# to 3024x4032; without ../shared, opencv-doc's messi5 upscaled to 4032x3024
# and three mirrored or cropped copies of it.
# With BASELINE set to another build's mattebox binary (`make bench-mattes
# BASELINE=REV` builds one from a git revision), every row is run with both,
# the baseline first, in the same run, side by side. REPEAT=N (default 1; 3
# with a baseline) times each row N times, the two builds taking turns, and
# prints the median wall and CPU and the highest peak: on a shared machine one
# run of each can differ by 10% from the next.
# Usage: mattes-bench.sh MATTEBOX_BINARY WORK_DIR TABLE_FILE
source "$(dirname "$0")/common.sh"
baseline=${BASELINE:-}
repeat=${REPEAT:-$([ -n "$baseline" ] && echo 3 || echo 1)}
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
# Twelve 1 MP photos (864x1152, and 1152x864 crops), three from each: what a camera's small
# captures or a batch of web-sized photos pay, where the fixed costs of a photo and a process count most.
small="$work/small"
rm -rf "$small" && mkdir -p "$small"
n=0
for f in "${photos[@]}"; do
    n=$((n + 1))
    vips thumbnail "$f" "$small/small-$n-a.jpg[Q=92]" 864 --height 1152 --size force --crop centre
    vips flip "$small/small-$n-a.jpg" "$small/small-$n-b.jpg[Q=92]" horizontal
    vips thumbnail "$f" "$small/small-$n-c.jpg[Q=92]" 1152 --height 864 --size force --crop centre
done
smalls=("$small"/*.jpg)
cat > "$work/mattes.yaml" <<'YAML'
stages:
  - plugin: org.mattebox.portrait-matte
  - plugin: org.mattebox.semantic-mattes
  - plugin: org.mattebox.heif
    params: { quality: 75, preset: fast }
YAML

# The median of the numbers on standard input.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# A runs file's (WALL CPU PEAK lines) median wall, median CPU and highest peak.
summary() { echo "$(cut -d' ' -f1 "$1" | median) $(cut -d' ' -f2 "$1" | median) $(cut -d' ' -f3 "$1" | sort -g | tail -1)"; }
floor() {  # runs file, photos...: heif-enc on each photo in turn, $repeat times; prints its summary
    local runs=$1
    shift
    for _ in $(seq "$repeat"); do
        $measure bash -c '
            for f in "$@"; do heif-enc -q 75 -p preset=fast -o "'"$work/out/floor"'-$(basename "${f%.*}").heic" "$f" > /dev/null; done' _ "$@"
    done > "$runs"
    summary "$runs"
}
echo "== codec floor: heif-enc, one photo at a time ($repeat run(s))"
read -r floor_wall floor_cpu floor_peak < <(floor "$work/out/floor-runs" "${photos[@]}")
read -r one_wall one_cpu one_peak < <(floor "$work/out/floor-one-runs" "${photos[0]}")
read -r small_wall small_cpu small_peak < <(floor "$work/out/floor-small-runs" "${smalls[@]}")
{
    echo "| run | wall s | x heif-enc wall | CPU s | x heif-enc CPU | peak MiB (RSS sum) | peak MiB (PSS sum) |"
    echo "|---|---|---|---|---|---|---|"
    printf "| heif-enc -q 75 -p preset=fast (primary only) | %.2f | 1.00 | %.2f | 1.00 | %d | |\n" "$floor_wall" "$floor_cpu" "$floor_peak"
    printf "| heif-enc, one photo (%s) | %.2f | 1.00 | %.2f | 1.00 | %d | |\n" "$(basename "${photos[0]}")" "$one_wall" "$one_cpu" "$one_peak"
    printf "| heif-enc, %d 1 MP photos one at a time | %.2f | 1.00 | %.2f | 1.00 | %d | |\n" "${#smalls[@]}" "$small_wall" "$small_cpu" "$small_peak"
} > "$table"
# Each build keeps its own plugin-scan cache: taking turns on one cache, each run
# would find the other build's and scan every plugin again.
cache_of() { if [ "$1" = "$baseline" ]; then echo "$work/cache-baseline"; else echo "$work/cache"; fi; }
# The scan is paid once per install, not per photo (1.5 s on this machine, loading every plugin and
# the libraries it links): each build scans into its cache before any timed row, so the one-photo
# row times a photo, as a camera or a later batch pays it, not the first run after installing.
for binary in $baseline "$mattebox"; do
    rm -rf "$(cache_of "$binary")"
    XDG_CACHE_HOME=$(cache_of "$binary") "$binary" plugins list > /dev/null
done
timed() {  # binary, jobs, photos and options...: one timed run, WALL CPU PEAK
    local binary=$1 jobs=$2
    shift 2
    rm -rf "$work/out/run"
    XDG_CACHE_HOME=$(cache_of "$binary") $measure "$binary" process "$@" -o "$work/out/run" --pipeline "$work/mattes.yaml" -j "$jobs" -q --report "$work/out/j$jobs.json"
}
print_row() {  # label, runs file (WALL CPU PEAK lines), PSS, floor wall, floor CPU
    local wall cpu peak
    read -r wall cpu peak < <(summary "$2")
    awk -v l="$1" -v w="$wall" -v c="$cpu" -v p="$peak" -v s="$3" -v fw="$4" -v fc="$5" \
        'BEGIN { printf "| %s | %.2f | %.2f | %.2f | %.2f | %d | %d |\n", l, w, w / fw, c, c / fc, p, s }' >> "$table"
}
pss_of() {  # binary, jobs, photos and options...: the tree's peak PSS, from a run of its own
    local binary=$1 jobs=$2
    shift 2
    # Reading every process's smaps_rollup 50 times a second slows the run by a quarter, so it is not timed.
    rm -rf "$work/out/run"
    XDG_CACHE_HOME=$(cache_of "$binary") $measure --pss --per-process "$work/out/j$jobs-processes.txt" "$binary" process "$@" \
        -o "$work/out/run" --pipeline "$work/mattes.yaml" -j "$jobs" -q | cut -d' ' -f4
}
row() {  # label, jobs, photos and extra options... (the floor: every photo, or the first alone)
    local label=$1 jobs=$2 fw=$floor_wall fc=$floor_cpu
    shift 2
    if [ "$#" -ge 1 ] && [ "$1" = "${photos[0]}" ] && [ "${2:-}" != "${photos[1]}" ]; then fw=$one_wall fc=$one_cpu; fi
    if [ "$#" -ge 1 ] && [ "$1" = "${smalls[0]}" ]; then fw=$small_wall fc=$small_cpu; fi
    echo "== $label ($repeat run(s)$([ -n "$baseline" ] && echo ' of each build, taking turns'))"
    : > "$work/out/baseline-runs"
    : > "$work/out/runs"
    for _ in $(seq "$repeat"); do
        if [ -n "$baseline" ]; then timed "$baseline" "$jobs" "$@" >> "$work/out/baseline-runs"; fi
        timed "$mattebox" "$jobs" "$@" >> "$work/out/runs"
    done
    if [ -n "$baseline" ]; then
        print_row "baseline: $label" "$work/out/baseline-runs" "$(pss_of "$baseline" "$jobs" "$@")" "$fw" "$fc"
    fi
    # This build's report (the per-step table below) is from its last timed run, which came last.
    local pss
    pss=$(pss_of "$mattebox" "$jobs" "$@")
    print_row "mattebox portrait + semantic mattes + HEIF, $label" "$work/out/runs" "$pss" "$fw" "$fc"
}
row "one photo, -j 1" 1 "${photos[0]}"
row "-j 1, primary encoded at the end (--no-encode-ahead)" 1 "${photos[@]}" --no-encode-ahead
for jobs in 1 2 4; do row "-j $jobs" "$jobs" "${photos[@]}"; done
# The -j 2 row's report and per-process peaks, for the notes below (the small photos' row writes its own).
cp "$work/out/j2.json" "$work/out/portraits-j2.json"
cp "$work/out/j2-processes.txt" "$work/out/portraits-j2-processes.txt"
row "${#smalls[@]} 1 MP photos, -j $(nproc)" "$(nproc)" "${smalls[@]}"
{
    echo ""
    echo "${#photos[@]} photos: $(cd "$inputs" && ls | tr '\n' ' ')(and ${#smalls[@]} 1 MP photos made from them); $(nproc) cores; wall and CPU the median of $repeat run(s), peaks the highest. At -j 1 the primary is encoded while the mattes run; at -j 2 and 4 (as many photos at once as cores) it is not."
    echo ""
    echo "Each process's own peak at -j 2:"
    echo ""
    sed 's/^[0-9]* /- /' "$work/out/portraits-j2-processes.txt"
    echo ""
    echo "The worker's peak resident memory per step (MiB, from the -j 2 report; each step's mark is reset at its start):"
    echo ""
    python3 - "$work/out/portraits-j2.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
names = [s["plugin"].split(".")[-1] for s in report["photos"][0]["stages"]]
print("| photo | decode | " + " | ".join(names) + " | encode + write |")
print("|---|" + "---|" * (len(names) + 2))
for photo in report["photos"]:
    cells = [photo.get("decodePeakMiB")] + [s.get("peakMiB") for s in photo["stages"]] + [photo.get("encodePeakMiB")]
    print("| " + photo["input"].split("/")[-1] + " | " + " | ".join("%.0f" % c if c else "?" for c in cells) + " |")
PY
} >> "$table"
cat "$table"
