#!/usr/bin/env bash
# Movies and Live Photos on a replay camera (the emulated V4L2 device, 1280x960 MJPEG at 30 fps):
# recording CPU and dropped frames per codec and preset (frames counted by ffprobe against
# 30 per second), and a Live Photo's shutter-to-still time next to a plain photo's, with the
# pre-roll's size and the process's peak memory.
# Usage: Samples/bench/record-bench.sh MATTEBOX OUT_DIR REPORT.md
set -euo pipefail
mattebox=$1 out=$2 report=$3
here=$(cd "$(dirname "$0")" && pwd)
cameras="$here/../cameras.yaml"
seconds=10
rm -rf "$out" && mkdir -p "$out"
{
    echo "Recording ${seconds} s of 1280x960 MJPEG at 30 fps on $(nproc) cores (\`mattebox record --duration ${seconds}\`):"
    echo
    echo "| codec | preset | frames (ffprobe) | expected | dropped | CPU s per movie s | peak RSS MiB |"
    echo "|---|---|---|---|---|---|---|"
    for setting in "h264 veryfast" "h264 faster" "hevc ultrafast"; do
        set -- $setting
        json="$out/record-$1-$2.json"
        /usr/bin/time -f "%U %S %M" -o "$out/time-$1-$2" "$mattebox" record --cameras "$cameras" --back --size 1280x960 \
            --duration "$seconds" --codec "$1" --preset "$2" -o "$out/movies-$1-$2" --json > "$json"
        python3 - "$json" "$out/time-$1-$2" "$1" "$2" "$seconds" <<'PY'
import json, subprocess, sys
movie = json.load(open(sys.argv[1]))["movie"]
user, system, rss = open(sys.argv[2]).read().split()
frames = int(subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                             "stream=nb_read_frames", "-of", "csv=p=0", movie["path"]], capture_output=True, text=True).stdout.strip())
expected = round(float(sys.argv[5]) * 30)
print(f"| {sys.argv[3]} | {sys.argv[4]} | {frames} | {expected} | {max(0, expected - frames)} (queue drops {movie['droppedFrames']}) "
      f"| {(float(user) + float(system)) / movie['duration']:.2f} | {int(rss) / 1024:.0f} |")
PY
    done
    echo
    echo "Live Photos (\`mattebox capture --count 5 --interval 2 --format jpeg [--live]\`, no pipeline):"
    echo
    echo "| photos | shutter-to-still mean s | max s | pre-roll MiB | peak RSS MiB |"
    echo "|---|---|---|---|---|"
    for live in "" "--live"; do
        json="$out/capture${live}.json"
        /usr/bin/time -f "%M" -o "$out/time-capture${live}" "$mattebox" capture --cameras "$cameras" --back --count 5 \
            --interval 2 --format jpeg $live -o "$out/photos${live}" --json > "$json"
        python3 - "$json" "$out/time-capture${live}" "${live:-plain}" <<'PY'
import json, statistics, sys
report = json.load(open(sys.argv[1]))
times = [p["shutterToFileSeconds"] for p in report["photos"]]
pre = report.get("livePhotoPreRollBytes")
rss = int(open(sys.argv[2]).read().split()[-1]) / 1024
print(f"| {sys.argv[3]} | {statistics.mean(times):.3f} | {max(times):.3f} | {pre / 2**20 if pre else 0:.1f} | {rss:.0f} |")
PY
    done
} | tee "$report"
