#!/usr/bin/env bash
# The camera app's cost: `mattebox serve` on the bundled back replay camera (1280x960 MJPEG at
# 30 fps), its CPU (from /proc/PID/stat) with no viewer and with 2 viewers of /preview.mjpg, the
# frames each viewer got, and shutter-to-file through POST /api/capture next to `mattebox capture`.
# Usage: Samples/bench/serve-bench.sh MATTEBOX OUT_DIR REPORT.md
set -euo pipefail
mattebox=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") out=$2 report=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out" && mkdir -p "$out"
"$mattebox" serve --cameras "$here/../cameras.yaml" --back --library "$out/library" --listen 127.0.0.1:0 \
    --pipeline upright --ignore-pressure > "$out/serve.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "http://" "$out/serve.log" && break; sleep 0.1; done
url=$(grep -o 'http://127.0.0.1:[0-9]*' "$out/serve.log")
python3 - "$url" "$server" "$mattebox" "$here/../cameras.yaml" "$out" <<'PY' | tee "$report"
import json, os, re, socket, statistics, subprocess, sys, threading, time, urllib.request
url, pid, mattebox, cameras, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
tick = os.sysconf("SC_CLK_TCK")

def cpu_seconds():
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / tick

def measure(seconds):
    start_cpu, start = cpu_seconds(), time.time()
    time.sleep(seconds)
    return 100 * (cpu_seconds() - start_cpu) / (time.time() - start)

def viewer(results, index, seconds):
    host, port = url[len("http://"):].split(":")
    connection = socket.create_connection((host, int(port)))
    connection.sendall(f"GET /preview.mjpg HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    frames, received, deadline = 0, 0, time.time() + seconds
    while time.time() < deadline:
        chunk = connection.recv(1 << 20)
        if not chunk:
            break
        received += len(chunk)
        frames += chunk.count(b"--mattebox-frame\r\n")
    connection.close()
    results[index] = (frames, received)

token = re.search(r'content="([0-9a-f]{48})"', urllib.request.urlopen(url + "/").read().decode()).group(1)
time.sleep(2)
idle = measure(10)

def watched_by_two():
    """Server CPU over 10 s while 2 viewers read /preview.mjpg for 12 s, and what each viewer got."""
    results = [None, None]
    threads = [threading.Thread(target=viewer, args=(results, i, 12)) for i in range(2)]
    for thread in threads:
        thread.start()
    time.sleep(1)
    cpu = measure(10)
    for thread in threads:
        thread.join()
    return cpu, results

watched, results = watched_by_two()

def capture(body):
    request = urllib.request.Request(url + "/api/capture", data=json.dumps(body).encode(), method="POST",
                                     headers={"X-Mattebox-Token": token, "Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(request))["shutterToFileSeconds"]

api = [capture({"quality": "balanced", "format": "jpeg"}) for _ in range(10)]

# The front replay camera sends YUYV 640x480: each frame is made a JPEG once for both viewers.
front = next(c["id"] for c in json.load(urllib.request.urlopen(url + "/api/status"))["cameras"] if c["position"] == "front")
urllib.request.urlopen(urllib.request.Request(url + "/api/camera", data=json.dumps({"camera": front}).encode(), method="POST",
                                              headers={"X-Mattebox-Token": token, "Content-Type": "application/json"}))
time.sleep(1)
yuyv, yuyv_results = watched_by_two()
for _ in range(10):
    time.sleep(0.3)
status = json.load(urllib.request.urlopen(url + "/api/status"))
cli = json.loads(subprocess.run(
    [mattebox, "capture", "--cameras", cameras, "--back", "--count", "10", "--interval", "0.3", "--priority", "balanced",
     "--format", "jpeg", "-o", os.path.join(out, "capture"), "--json"], capture_output=True, text=True, check=True).stdout)
cli_times = [p["shutterToFileSeconds"] for p in cli["photos"]]
print("| measure | value |")
print("|---|---|")
print(f"| server CPU, camera streaming, no viewer | {idle:.1f}% of one core |")
print(f"| server CPU, 2 viewers of /preview.mjpg (1280x960 MJPEG, 30 fps) | {watched:.1f}% of one core |")
for index, (frames, received) in enumerate(results):
    print(f"| viewer {index + 1} | {frames / 12:.1f} frames/s, {received / 12 / 1e6:.2f} MB/s |")
print(f"| server CPU, 2 viewers, YUYV 640x480 camera (one JPEG encode per frame) | {yuyv:.1f}% of one core, "
      f"{yuyv_results[0][0] / 12:.1f} and {yuyv_results[1][0] / 12:.1f} frames/s |")
print(f"| preview frames passed through / encoded | {status['preview']['passedThrough']} / {status['preview']['encoded']} |")
print(f"| shutter-to-file, POST /api/capture (balanced, jpeg), 10 photos | mean {statistics.mean(api):.3f} s, median {statistics.median(api):.3f} s |")
print(f"| shutter-to-file, mattebox capture (balanced, jpeg), 10 photos | mean {statistics.mean(cli_times):.3f} s, median {statistics.median(cli_times):.3f} s |")
PY
