#!/usr/bin/env bash
# Fuzzes every parser Mattebox wrote with libFuzzer under AddressSanitizer (as OSS-Fuzz runs
# libheif's and libvips'): builds tests/Fuzz's driver with -sanitize=fuzzer,address into
# .build/fuzz, seeds a corpus per target from the samples and fixtures (and ../shared when it is
# beside the checkout), then runs each target.
#   Tests/Fuzz/run.sh [RUNS] [SECONDS] [SEED]   each target for RUNS executions (default 1000000),
#                                        stopping early after SECONDS (default 600); SEED fixes
#                                        libFuzzer's random choices (default: a new seed each run)
# A crash leaves its input in Tests/Fuzz/Regressions/TARGET/ (commit it: FuzzRegressionTests
# replays every file there) and fails the run. A table of executions per target goes to
# bench-out/fuzz/fuzz.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-1000000}
seconds=${2:-600}
seed=${3:-0}
work=bench-out/fuzz
mkdir -p "$work"
echo "== building the fuzz driver (release, libFuzzer + AddressSanitizer) into .build/fuzz"
swift build -c release --product mattebox-fuzz --build-path .build/fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -use-ld=lld
driver=$(swift build -c release --build-path .build/fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -use-ld=lld --show-bin-path)/mattebox-fuzz
targets=$("$driver" 2>&1 | sed -n "s/.*targets: //p" | tr -d "," || true)

seeds="$work/seeds"
rm -rf "$seeds" && mkdir -p "$seeds"
photos=Samples/photos
shared=../shared
heics=()
[ -d "$shared/heic-samples" ] && heics=("$shared"/heic-samples/*.heic "$shared"/heic-samples/*.HEIC)
heif-enc -q 50 "$photos/orientation-1.jpg" -o "$seeds/made.heic" > /dev/null
heif-enc -q 50 "$photos/orientation-1.jpg" "$photos/orientation-3.jpg" -o "$seeds/burst.heic" > /dev/null
ffmpeg -loglevel error -f lavfi -i testsrc=size=64x48:rate=10 -t 1 -c:v libx264 -pix_fmt yuv420p "$seeds/plain.mp4"
ffmpeg -loglevel error -f lavfi -i testsrc=size=64x48:rate=10 -t 2 -c:v libx264 -pix_fmt yuv420p -g 10 \
    -movflags frag_keyframe+empty_moov "$seeds/fragmented.mp4"
python3 - "$seeds" <<'PY'
import struct, sys, os
seeds = sys.argv[1]
# A 4x3 24-bit BMP and a 3x2 PFM (grey, little-endian).
w, h = 4, 3
row = bytes([10, 20, 30] * w)
row += b"\0" * ((4 - len(row) % 4) % 4)
pixels = row * h
bmp = b"BM" + struct.pack("<IHHI", 54 + len(pixels), 0, 0, 54) + struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(pixels), 2835, 2835, 0, 0) + pixels
open(os.path.join(seeds, "small.bmp"), "wb").write(bmp)
open(os.path.join(seeds, "small.pfm"), "wb").write(b"Pf\n3 2\n-1.0\n" + struct.pack("<6f", 0.5, 1, 2, 3, 4, 5))
for name, text in [("a", "bytes=0-99"), ("b", "bytes=-500"), ("c", "bytes=1000-"), ("d", "bytes=0-9,20-29")]:
    open(os.path.join(seeds, f"range-{name}.txt"), "w").write(text)
PY
for jpeg in "$photos"/*.jpg; do exiftool -b -EXIF "$jpeg" > "$seeds/$(basename "$jpeg").exif" 2>/dev/null || true; done
for heic in "${heics[@]}"; do exiftool -b -XMP "$heic" > "$seeds/$(basename "$heic").xmp" 2>/dev/null || true; done

seed() { # TARGET -> the files its corpus starts from
    case $1 in
        isobmff|heif-motion-photo) ls "$seeds"/*.heic "${heics[@]}" ;;
        jpeg-segments) ls "$photos"/*.jpg ;;
        exif) ls "$seeds"/*.exif ;;
        motion-photo-xmp) ls "$seeds"/*.xmp "$photos"/orientation-1.jpg 2>/dev/null ;;
        movie) ls "$seeds"/*.mp4 ;;
        bmp) ls "$seeds"/*.bmp ;;
        pfm) ls "$seeds"/*.pfm ;;
        png-text) ls "$photos"/*.png ;;
        pipeline-yaml) ls Samples/pipelines/*.yaml ;;
        http-range) ls "$seeds"/range-*.txt ;;
        mpf-index|extended-xmp|dynamic-depth) ls "$shared"/depth-samples/*.jpg 2>/dev/null ;;
    esac
}

table="$work/fuzz.md"
{ echo "| target | executions | seconds | corpus files | result |"; echo "|---|---|---|---|---|"; } > "$table"
failed=0
for target in $targets; do
    corpus="$work/corpus/$target"
    regressions="Tests/Fuzz/Regressions/$target"
    mkdir -p "$corpus" "$regressions"
    for file in $(seed "$target"); do [ -s "$file" ] && cp "$file" "$corpus/" ; done
    [ -n "$(ls -A "$regressions")" ] && cp "$regressions"/* "$corpus/"
    [ -d "Tests/Fuzz/Seeds/$target" ] && cp "Tests/Fuzz/Seeds/$target"/* "$corpus/"
    echo "== $target: $runs runs (at most $seconds s)"
    log="$work/$target.log"
    status=0
    ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 "$driver" "$target" "$corpus" -runs="$runs" \
        -max_total_time="$seconds" -seed="$seed" -max_len=262144 -rss_limit_mb=4096 -timeout=20 -print_final_stats=1 \
        -artifact_prefix="$regressions/" > "$log" 2>&1 || status=$?
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    elapsed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    files=$(ls "$corpus" | wc -l)
    if [ "$status" = 0 ]; then result=ok; else result="FAILED (status $status, input in $regressions)"; failed=1; tail -30 "$log"; fi
    echo "| $target | ${executions:-?} | $( [ -n "$elapsed" ] && [ "$elapsed" != 0 ] && echo $(( ${executions:-0} / elapsed )) || echo ?) | $files | $result |" >> "$table"
done
cat "$table"
total=$(echo $targets | wc -w)
bad=$(grep -c "FAILED" "$table" || true)
echo "fuzz: $((total - bad)) passed, $bad failed"
exit $failed
