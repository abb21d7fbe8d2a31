#!/usr/bin/env python3
"""Each phone JPEG with depth, processed to HEIC by Mattebox, read back by pillow-heif: the
depth image is there, as big as the depth `mattebox inspect --json` lists for the JPEG, with
the same disparity range (d_min, d_max) and values spread over it (not a flat image)."""
import argparse, json, pathlib, subprocess, sys

import pillow_heif

parser = argparse.ArgumentParser()
parser.add_argument("--mattebox", required=True)
parser.add_argument("--samples", required=True)
parser.add_argument("--work", required=True)
args = parser.parse_args()

failures = []
checked = 0
for jpeg in sorted(pathlib.Path(args.samples).glob("*.jpg")):
    listed = json.loads(subprocess.run([args.mattebox, "inspect", "--json", str(jpeg)], check=True, capture_output=True, text=True).stdout)
    depth = [a for a in listed.get("auxiliary", []) if a["role"] in ("disparity", "depth")]
    if not depth:
        failures.append(f"{jpeg.name}: inspect lists no depth")
        continue
    depth = depth[0]
    out = pathlib.Path(args.work) / jpeg.stem
    subprocess.run([args.mattebox, "process", str(jpeg), "-o", str(out), "--format", "heic", "-q"], check=True)
    heic = out / (jpeg.stem + ".heic")
    heif = pillow_heif.open_heif(str(heic))
    images = heif.info.get("depth_images") or []
    if len(images) != 1:
        failures.append(f"{jpeg.name}: pillow-heif finds {len(images)} depth images in {heic}")
        continue
    image = images[0]
    metadata = image.info.get("metadata", {})
    if image.size != (depth["width"], depth["height"]):
        failures.append(f"{jpeg.name}: pillow-heif's depth is {image.size}, inspect listed {depth['width']}x{depth['height']}")
    expected = depth.get("depth") or {}
    for key, name in (("disparityMinimum", "d_min"), ("disparityMaximum", "d_max")):
        if key in expected and abs(metadata.get(name, -1) - expected[key]) > 1e-3 * max(1.0, abs(expected[key])):
            failures.append(f"{jpeg.name}: {name} {metadata.get(name)} != {expected[key]}")
    low, high = image.to_pillow().getextrema()
    if high - low < 32:
        failures.append(f"{jpeg.name}: the depth pillow-heif decodes is nearly flat ({low}-{high})")
    checked += 1
    print(f"{jpeg.name}: pillow-heif reads depth {image.size[0]}x{image.size[1]}, representation {metadata.get('representation_type')}, "
          f"d {metadata.get('d_min', 0):.4f}-{metadata.get('d_max', 0):.4f}, values {low}-{high}")

if failures or checked == 0:
    print("\n".join(failures) or "no sample checked", file=sys.stderr)
    sys.exit(1)
print(f"interop: {checked} phone JPEGs read back as depth by pillow-heif {pillow_heif.__version__}")
