#!/usr/bin/env python3
"""The Python peer for `make bench`: what people write today with
opencv-python-headless and pillow-heif to do Mattebox's pipeline (b).

For each photo: decode (pillow-heif for HEIC), turn upright from EXIF, find
the largest face with OpenCV's Haar cascade, make a person matte with GrabCut
seeded from the face, a hair matte with a second GrabCut above the forehead
and a skin matte from a Lab colour model of the cheeks, at a working size of
768 px like Mattebox; write the photo as HEIC with pillow-heif and the mattes
as half-size PNGs beside it (pillow-heif cannot write auxiliary images).

Usage: python_peer.py --jobs N --out DIR [--quality Q] [--preset P] PHOTO...
"""
import argparse
import multiprocessing
import os
import sys

import cv2
import numpy as np
import pillow_heif
from PIL import Image, ImageOps

CASCADES = "/usr/share/opencv4/haarcascades"
WORKING = 768


def face_in(grey):
    cascade = cv2.CascadeClassifier(os.path.join(CASCADES, "haarcascade_frontalface_default.xml"))
    faces = cascade.detectMultiScale(cv2.equalizeHist(grey), 1.1, 3, minSize=(24, 24))
    if len(faces) == 0:
        return None
    return max(faces, key=lambda f: f[2] * f[3])


def grabcut(image, mask, iterations):
    background, foreground = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    cv2.grabCut(image, mask, None, background, foreground, iterations, cv2.GC_INIT_WITH_MASK)
    return np.where((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD), 255, 0).astype(np.uint8)


def mattes(bgr):
    height, width = bgr.shape[:2]
    scale = WORKING / max(height, width)
    small = cv2.resize(bgr, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_AREA)
    face = face_in(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY))
    if face is None:
        return {}
    x, y, w, h = (int(v) for v in face)
    sh, sw = small.shape[:2]
    # Person: head and shoulders probably foreground, face core surely, top corners background.
    person = np.full((sh, sw), cv2.GC_PR_BGD, np.uint8)
    cv2.ellipse(person, (x + w // 2, y + h // 2), (int(w * 0.75), int(h * 0.95)), 0, 0, 360, cv2.GC_PR_FGD, -1)
    cv2.rectangle(person, (max(0, x - w), y + h), (min(sw - 1, x + 2 * w), sh - 1), cv2.GC_PR_FGD, -1)
    cv2.rectangle(person, (x + w // 4, y + h // 4), (x + 3 * w // 4, y + 3 * h // 4), cv2.GC_FGD, -1)
    person[: max(1, y // 2), : max(1, x - w // 2)] = cv2.GC_BGD
    person[: max(1, y // 2), min(sw - 1, x + w + w // 2):] = cv2.GC_BGD
    person_matte = grabcut(small, person, 3)
    # Hair: above the forehead inside the person, the face itself background.
    hair = np.where(person_matte > 0, cv2.GC_PR_BGD, cv2.GC_BGD).astype(np.uint8)
    hair[max(0, y - h // 3): y + h // 8, x: x + w] = cv2.GC_PR_FGD
    hair[y + h // 3: y + h, x + w // 5: x + 4 * w // 5] = cv2.GC_BGD
    hair_matte = grabcut(small, hair, 2) if (hair == cv2.GC_PR_FGD).any() else np.zeros_like(person_matte)
    # Skin: a Lab Gaussian of the cheeks, Mahalanobis distance under 3.
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    cheeks = cv2.cvtColor(small[y + h // 2: y + 3 * h // 4, x + w // 5: x + 4 * w // 5], cv2.COLOR_BGR2LAB)
    samples = cheeks.reshape(-1, 3).astype(np.float32)
    mean, covariance = samples.mean(axis=0), np.cov(samples.T) + np.eye(3) * 4
    difference = lab - mean
    distance = np.einsum("ij,jk,ik->i", difference, np.linalg.inv(covariance), difference)
    skin_matte = np.where(distance.reshape(sh, sw) < 9, 255, 0).astype(np.uint8) & person_matte
    half = (width // 2, height // 2)
    return {
        name: cv2.GaussianBlur(cv2.resize(matte, half, interpolation=cv2.INTER_LINEAR), (5, 5), 0)
        for name, matte in (("portraitMatte", person_matte), ("hairMatte", hair_matte), ("skinMatte", skin_matte))
    }


def process(job):
    path, out, quality, preset = job
    stem = os.path.splitext(os.path.basename(path))[0]
    try:
        if path.lower().endswith((".heic", ".heif")):
            image = pillow_heif.open_heif(path).to_pillow()
        else:
            image = Image.open(path)
        image = ImageOps.exif_transpose(image).convert("RGB")
        bgr = cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR)
        for name, matte in mattes(bgr).items():
            cv2.imwrite(os.path.join(out, f"{stem}.{name}.png"), matte)
        heif = pillow_heif.from_pillow(image)
        heif.save(os.path.join(out, f"{stem}.heic"), quality=quality, enc_params={"preset": preset})
        return None
    except Exception as error:  # one photo's failure must not stop the batch
        return f"{path}: {error}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", required=True)
    parser.add_argument("--quality", type=int, default=75)
    parser.add_argument("--preset", default="fast")
    parser.add_argument("photos", nargs="+")
    arguments = parser.parse_args()
    os.makedirs(arguments.out, exist_ok=True)
    cv2.setNumThreads(1)
    jobs = [(path, arguments.out, arguments.quality, arguments.preset) for path in arguments.photos]
    with multiprocessing.Pool(arguments.jobs) as pool:
        errors = [error for error in pool.imap(process, jobs) if error]
    for error in errors:
        print(error, file=sys.stderr)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
