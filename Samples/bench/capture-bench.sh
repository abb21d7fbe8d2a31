#!/usr/bin/env bash
# Capture latency on a replay camera (the emulated V4L2 device, 1280x960 MJPEG at 30 fps):
# shutter-to-file time per photo and the preview frame rate, per quality and format.
# Usage: Samples/bench/capture-bench.sh MATTEBOX OUT_DIR REPORT.md
set -euo pipefail
mattebox=$1 out=$2 report=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
{
    echo "| quality | format | photos | shutter-to-file mean s | median s | max s | preview fps | frames kept / defective |"
    echo "|---|---|---|---|---|---|---|---|"
    for quality in speed balanced quality; do
        for format in jpeg heic; do
            json="$out/capture-$quality-$format.json"
            "$mattebox" capture --cameras "$here/../cameras.yaml" --back --count 10 --interval 0.3 \
                --priority "$quality" --format "$format" -o "$out/capture" --json > "$json"
            python3 - "$json" "$quality" "$format" <<'PY'
import json, statistics, sys
report = json.load(open(sys.argv[1]))
times = [p["shutterToFileSeconds"] for p in report["photos"]]
print(f"| {sys.argv[2]} | {sys.argv[3]} | {len(times)} | {statistics.mean(times):.3f} | {statistics.median(times):.3f} "
      f"| {max(times):.3f} | {report['previewFramesPerSecond']:.1f} | {report['frames']['kept']} / {report['frames']['defective']} |")
PY
        done
    done
} | tee "$report"
