#!/usr/bin/env python3
"""Makes Mattebox's small bundled sample photos.

orientation-1.jpg ... orientation-8.jpg store the same asymmetric test pattern
under each EXIF orientation: their stored pixels differ, but every one of them
displays (and normalises to) the same upright picture, so a wrong rotation or
a missed mirror is visible at once. selfie-front.jpg is the upright pattern
tagged as taken by a front camera, for the mirroring policies.
selfie-front.depth.png (16-bit millimetres, half size) and selfie-front.portraitMatte.png
(8-bit) are its depth map and portrait matte: the red block is the near subject.

Uses only the Python standard library plus the `vips` and `exiftool` commands
(Debian: libvips-tools, libimage-exiftool-perl).
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

WIDTH, HEIGHT = 96, 64


def pattern_pixel(x, y):
    """A gradient with a red block top-left and a blue bar bottom-right."""
    if x < 24 and y < 16:
        return (230, 30, 30)
    if x >= WIDTH - 40 and y >= HEIGHT - 8:
        return (20, 40, 220)
    return (40 + x * 2, 40 + y * 3, 90)


def write_png(path):
    rows = b"".join(
        b"\x00" + bytes(c for x in range(WIDTH) for c in pattern_pixel(x, y)) for y in range(HEIGHT)
    )

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0)
    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def write_grey_png(path, width, height, bits, value):
    """A one-channel PNG (8 or 16 bits) whose samples come from value(x, y)."""
    pack = (lambda v: bytes([v])) if bits == 8 else (lambda v: struct.pack(">H", v))
    rows = b"".join(b"\x00" + b"".join(pack(value(x, y)) for x in range(width)) for y in range(height))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, bits, 0, 0, 0, 0)
    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def subject(x, y):
    """True inside the red block, the near subject of the selfie sample."""
    return x < 24 and y < 16


# EXIF orientation -> (mirror first?, clockwise quarter turns) to display it.
DISPLAY = {1: (False, 0), 2: (True, 0), 3: (False, 2), 4: (True, 2), 5: (True, 3), 6: (False, 1), 7: (True, 1), 8: (False, 3)}
ANGLE = {1: "d90", 2: "d180", 3: "d270"}


def run(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL)


def main(folder):
    os.makedirs(folder, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        upright = os.path.join(scratch, "upright.png")
        write_png(upright)
        for tag, (mirror, turns) in DISPLAY.items():
            # Stored pixels are the inverse of the display transform: turn back, then un-mirror.
            current = upright
            if turns:
                turned = os.path.join(scratch, f"turned-{tag}.png")
                run("vips", "rot", current, turned, ANGLE[(4 - turns) % 4])
                current = turned
            if mirror:
                flipped = os.path.join(scratch, f"flipped-{tag}.png")
                run("vips", "flip", current, flipped, "horizontal")
                current = flipped
            target = os.path.join(folder, f"orientation-{tag}.jpg")
            run("vips", "copy", current, target + "[Q=92,strip]")
            run("exiftool", "-q", "-overwrite_original", f"-Orientation#={tag}", "-Make=Mattebox", "-Model=Sample pattern",
                "-DateTimeOriginal=2026:01:02 03:04:05", "-GPSLatitude=48.8584", "-GPSLatitudeRef=N",
                "-GPSLongitude=2.2945", "-GPSLongitudeRef=E", target)
        selfie = os.path.join(folder, "selfie-front.jpg")
        run("vips", "copy", upright, selfie + "[Q=92,strip]")
        run("exiftool", "-q", "-overwrite_original", "-Orientation#=1", "-Make=Mattebox", "-Model=Sample selfie",
            "-LensModel=Sample front camera 2.7mm f/2.2", selfie)
        # Depth at half resolution: the subject at 0.6 m, the wall behind from 2 to 3 m.
        write_grey_png(os.path.join(folder, "selfie-front.depth.png"), WIDTH // 2, HEIGHT // 2, 16,
                       lambda x, y: 600 if subject(2 * x, 2 * y) else 2000 + 1000 * x // (WIDTH // 2))
        write_grey_png(os.path.join(folder, "selfie-front.portraitMatte.png"), WIDTH, HEIGHT, 8,
                       lambda x, y: 255 if subject(x, y) else 0)
    print(f"wrote samples to {folder}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
