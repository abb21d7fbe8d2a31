#!/usr/bin/env python3
"""The camera app (`mattebox serve`) in a real browser: Debian's chromium driven by
Playwright. Starts the server with replay cameras and a scratch library, then checks
what a user sees: the preview moves, the shutter writes a photo that shows in the
library with its matte overlays, the front camera's preview differs and is mirrored,
manual exposure brightens the preview, an unplugged camera shows a banner that a
replug clears, trash and restore, and a client beyond loopback is refused without the
token. A screenshot of each step goes to the artifacts folder.

Usage: camera_app_test.py --mattebox PATH --artifacts DIR [--chromium PATH]
"""
import argparse
import json
import os
import hashlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
FACES = Path("/usr/share/doc/opencv-doc/examples/data/messi5.jpg")


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def start_server(mattebox, folder):
    """mattebox serve on a free loopback port, behind a pretend proxy so a test can
    speak as a client beyond loopback (X-Forwarded-For)."""
    flipped = folder / "messi5-flipped.png"
    subprocess.run(["vips", "flip", str(FACES), str(flipped), "horizontal"], check=True)
    config = folder / "cameras.yaml"
    config.write_text(f"""cameras:
  - name: Browser Back
    position: back
    images: [{FACES}, {flipped}]
    framesPerPicture: 12
    format: MJPG
    sizes: [640x480]
    regionOfInterest: true
  - name: Browser Front
    position: front
    images: [{ROOT}/Samples/photos/selfie-front.jpg]
    format: YUYV
    sizes: [640x480]
""")
    library = folder / "library"
    process = subprocess.Popen(
        [mattebox, "serve", "--cameras", str(config), "--library", str(library), "--listen", "127.0.0.1:0",
         "--pipeline", "portrait-mattes", "--behind-proxy", "--ignore-pressure"],
        stdout=subprocess.PIPE, stderr=sys.stderr, text=True)
    line = process.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not match:
        process.kill()
        raise Failure(f"mattebox serve printed no address: {line!r}")
    return process, f"http://127.0.0.1:{match.group(1)}", library


def preview_signature(page):
    """The preview as the page shows it, reduced to 8x6 grey levels and the mean, read through a canvas."""
    return page.evaluate("""() => {
        const img = document.getElementById('preview');
        const canvas = document.createElement('canvas');
        canvas.width = 8; canvas.height = 6;
        const context = canvas.getContext('2d');
        context.drawImage(img, 0, 0, 8, 6);
        const data = context.getImageData(0, 0, 8, 6).data;
        const cells = [];
        for (let i = 0; i < data.length; i += 4) cells.push(Math.round((data[i] + data[i + 1] + data[i + 2]) / 3));
        return { cells, mean: cells.reduce((a, b) => a + b, 0) / cells.length, width: img.naturalWidth };
    }""")


def wait_for(predicate, seconds, message):
    deadline = time.time() + seconds
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise Failure(message)


def run(mattebox, artifacts, chromium):
    artifacts.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="mattebox-browser-"))
    server, url, library = start_server(mattebox, folder)
    steps = []

    def shot(page, name):
        path = artifacts / f"{len(steps) + 1:02d}-{name}.png"
        page.screenshot(path=str(path), full_page=True)
        steps.append(str(path))
        print(f"  ok: {name} ({path})")

    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium, args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.on("response", lambda response: print(f"  HTTP {response.status}: {response.url}") if response.status >= 400 and response.status != 401 else None)
            movie_statuses = {}  # each movie's first answer: Chromium asks media for a byte range
            page.on("response", lambda response: movie_statuses.setdefault(response.url, response.status) if "/movie?" in response.url else None)
            # The page's own script must run clean: a syntax or runtime error, or an error it logs, fails the test.
            page_errors = []
            page.on("pageerror", lambda error: page_errors.append(f"page error: {error}"))
            page.on("console", lambda message: page_errors.append(f"console {message.type}: {message.text}")
                    if message.type == "error" and "401" not in message.text else None)
            page.goto(url + "/")
            expect(page.get_by_test_id("shutter")).to_be_enabled(timeout=20000)
            token = page.locator('meta[name="mattebox-token"]').get_attribute("content")
            headers = {"X-Mattebox-Token": token}
            # What the server sends is the repository's files, embedded at build time.
            assets = ROOT / "Sources" / "Apps" / "MatteboxServer" / "Page" / "Assets"
            for name in ["app.js", "app.css"]:
                served = page.request.get(url + "/" + name).text()
                check(served == (assets / name).read_text(), f"/{name} is not {assets / name}")

            # The preview moves: the replay camera alternates two pictures every 12 frames.
            first = wait_for(lambda: (s := preview_signature(page))["width"] > 0 and s, 10, "the preview never showed a frame")
            wait_for(lambda: preview_signature(page)["cells"] != first["cells"], 10, "the preview <img> did not change over time")
            shot(page, "preview")

            # Two quick presses: each answers once its photo as taken is on disk, the shutter is enabled
            # between them, and each tile shows processing and then the final with its mattes. Every state
            # a tile is drawn in is recorded, however briefly it shows.
            page.evaluate("""() => {
              window.tileStates = {};
              new MutationObserver(() => {
                for (const tile of document.querySelectorAll('#library .item')) {
                  (window.tileStates[tile.dataset.photo] ||= new Set()).add(tile.dataset.state);
                }
              }).observe(document.getElementById('library'), { childList: true, subtree: true, attributes: true });
            }""")
            result = page.get_by_test_id("result")
            page.get_by_test_id("shutter").click()
            expect(result).to_have_attribute("data-photo", re.compile(r"\.heic$"), timeout=60000)
            first_press = result.get_attribute("data-photo")
            expect(page.get_by_test_id("shutter")).to_be_enabled(timeout=1000)
            page.get_by_test_id("shutter").click()
            wait_for(lambda: result.get_attribute("data-photo") not in (None, first_press), 60, "the second press gave no photo")
            second_press = result.get_attribute("data-photo")
            for name in (first_press, second_press):
                check((library / name).is_file(), f"{name} is not in the library folder")
                expect(page.locator(f'#library .item[data-photo="{name}"]')).to_be_visible(timeout=10000)
            if page.locator('#library .item[data-state="processing"]').count() > 0:
                shot(page, "two-presses-processing")
            for name in (first_press, second_press):
                expect(page.locator(f'#library .item[data-photo="{name}"]')).to_have_attribute("data-state", "final", timeout=90000)
            expect(result).to_contain_text("final written", timeout=30000)
            shot(page, "two-presses-final")
            states = page.evaluate("(names) => names.map((n) => [...(window.tileStates[n] || [])])", [first_press, second_press])
            for name, seen in zip((first_press, second_press), states):
                check("processing" in seen and "final" in seen, f"{name} was drawn as {seen}, not processing then final")
            photo = first_press
            item = page.locator(f'#library .item[data-photo="{photo}"]')
            expect(item).to_be_visible(timeout=10000)
            expect(item.locator(".badge").first).to_be_visible()
            badges = item.locator(".badge").all_inner_texts()
            check(any("portrait" in badge.lower() for badge in badges), f"no portrait matte on the photo: {badges}")
            shot(page, "shutter-library")
            item.click()
            layer = page.locator('#viewer-layers button[data-layer="portraitMatte"]')
            layer.click()
            viewer = page.get_by_test_id("viewer-image")
            expect(viewer).to_have_attribute("data-layer", "portraitMatte")
            wait_for(lambda: page.evaluate("() => { const i = document.getElementById('viewer-image');"
                                           " return i.complete && i.naturalWidth > 0 && i.src.includes('/overlay/portraitMatte'); }"),
                     20, "the portrait matte overlay did not load")
            shot(page, "viewer-overlay")

            # The Portrait control: the effect re-rendered on the server as the f-number slider moves,
            # tap to refocus, and "Save a copy" writing a new file with the original unchanged.
            original_sha = hashlib.sha256((library / photo).read_bytes()).hexdigest()
            page.locator('#viewer-layers button[data-layer="portrait"]').click()
            expect(page.get_by_test_id("portrait-control")).to_be_visible()
            expect(viewer).to_have_attribute("data-aperture", "4.5", timeout=30000)
            # The control starts where the first render was made (this capture: the plugin's f/4.5, its subject).
            expect(page.get_by_test_id("aperture-value")).to_have_text("f/4.5")
            expect(viewer).to_have_attribute("data-focus", "subject")
            shot(page, "portrait-f4.5")

            def sharpness():
                wait_for(lambda: page.evaluate("() => { const i = document.getElementById('viewer-image'); return i.complete && i.naturalWidth > 0; }"),
                         20, "the portrait render did not load")
                return page.evaluate("""() => {
                    const i = document.getElementById('viewer-image'), c = document.createElement('canvas');
                    c.width = i.naturalWidth; c.height = i.naturalHeight;
                    const g = c.getContext('2d'); g.drawImage(i, 0, 0);
                    const d = g.getImageData(0, 0, c.width, c.height).data;
                    let total = 0;
                    for (let p = 4; p < d.length; p += 4) total += Math.abs(d[p] - d[p - 4]);
                    return total / (d.length / 4); }""")

            def set_aperture(value, label):
                page.get_by_test_id("aperture").evaluate(f"(s) => {{ s.value = {value}; s.dispatchEvent(new Event('input')); }}")
                expect(page.get_by_test_id("aperture-value")).to_have_text(label)
                expect(viewer).to_have_attribute("data-aperture", label[2:], timeout=30000)

            set_aperture(0, "f/1.4")
            wide = sharpness()
            shot(page, "portrait-f1.4")
            set_aperture(100, "f/16.0")
            deep = sharpness()
            shot(page, "portrait-f16")
            check(deep > wide * 1.05, f"f/16 is not sharper than f/1.4 (edge strength {deep:.2f} vs {wide:.2f})")
            set_aperture(0, "f/1.4")
            box = viewer.bounding_box()
            viewer.click(position={"x": box["width"] * 0.1, "y": box["height"] * 0.1})
            expect(viewer).not_to_have_attribute("data-focus", "subject", timeout=30000)
            shot(page, "portrait-refocused")
            before = {p.name for p in library.iterdir()}
            page.get_by_test_id("save-portrait").click()
            expect(page.get_by_test_id("portrait-status")).to_contain_text("Saved as", timeout=60000)
            saved = page.get_by_test_id("portrait-status").inner_text().split("Saved as ", 1)[1].strip()
            check(saved not in before and (library / saved).is_file(), f"no new file {saved} in the library")
            check(hashlib.sha256((library / photo).read_bytes()).hexdigest() == original_sha, "saving a copy changed the original")
            expect(page.locator(f'#library .item[data-photo="{saved}"]')).to_be_visible(timeout=10000)
            shot(page, "portrait-saved")
            page.locator("#close-viewer").click()

            # A Live Photo: the toggle fills the pre-roll; the shutter then writes the still and its movie.
            page.get_by_test_id("live").check()
            # The movie's duration is checked below: shoot once the pre-roll spans its 1.5 s.
            wait_for(lambda: (lambda st: st["livePhotos"] and st["livePhotoPreRollSeconds"] >= 1.4)(
                page.request.get(url + "/api/status", headers=headers).json()), 30, "the Live Photo pre-roll never filled")
            page.get_by_test_id("shutter").click()
            expect(page.get_by_test_id("result")).to_have_attribute("data-live", "yes", timeout=60000)
            live_photo = page.get_by_test_id("result").get_attribute("data-photo")
            # The movie is written once the 1.5 s after the press are in and the still is final.
            wait_for(lambda: (library / live_photo).with_suffix(".mov").is_file(), 60, f"no movie beside {live_photo}")
            page.get_by_test_id("live").uncheck()
            shot(page, "live-photo")
            # In the library the still is badged live (its movie is not listed apart) and its movie plays.
            live_item = page.locator(f'#library .item[data-photo="{live_photo}"]')
            expect(live_item.get_by_test_id("movie-badge")).to_have_text("live", timeout=20000)
            live_movie = Path(live_photo).with_suffix(".mov").name
            check(page.locator(f'#library .item[data-photo="{live_movie}"]').count() == 0, "the Live Photo's movie is listed apart from its still")
            live_item.click()
            page.locator('#viewer-layers button[data-layer="movie"]').click()
            wait_for(lambda: page.evaluate("() => { const v = document.getElementById('viewer-video');"
                                           " return !v.hidden && v.readyState >= 2 && v.videoWidth > 0 && v.duration > 2; }"),
                     20, "the Live Photo's movie did not play in the viewer")
            shot(page, "live-photo-playing")
            # Trash takes the movie with the still; restore brings both back.
            page.get_by_test_id("delete").click()
            expect(page.locator(f'#trash .item[data-photo="{live_photo}"]')).to_be_visible(timeout=10000)
            check((library / ".trash" / live_movie).is_file() and not (library / live_movie).exists(), "the movie did not go to the trash with its still")
            page.locator(f'#trash .item[data-photo="{live_photo}"]').get_by_test_id("restore").click()
            expect(live_item).to_be_visible(timeout=10000)
            check((library / live_movie).is_file() and (library / live_photo).is_file(), "restore did not bring the still and its movie back")

            # Record: the button turns into Stop while the movie records, and back when it is finished.
            record = page.get_by_test_id("record")
            record.click()
            expect(record).to_have_attribute("data-recording", "yes", timeout=10000)
            shot(page, "recording")
            # Stop once the stream has kept 30 more frames (about a second), however long that takes.
            def frames_kept():
                return page.request.get(url + "/api/status", headers=headers).json()["framesKept"]
            recording_from = frames_kept()
            wait_for(lambda: frames_kept() >= recording_from + 30, 60, "the camera stopped streaming while recording")
            record.click()
            expect(record).to_have_attribute("data-recording", "no", timeout=10000)
            expect(page.get_by_test_id("result")).to_contain_text("Movie", timeout=10000)
            movies = [p for p in library.iterdir() if p.suffix == ".mp4" and ".recording" not in p.name]
            check(len(movies) == 1, f"one finished movie expected in the library: {movies}")
            # The movie is in the library, its first frame as its thumbnail, and plays in the viewer.
            movie_item = page.locator(f'#library .item[data-photo="{movies[0].name}"]')
            expect(movie_item.get_by_test_id("movie-badge")).to_contain_text("movie", timeout=20000)
            wait_for(lambda: movie_item.locator("video").evaluate("(v) => v.readyState >= 1 && v.videoWidth > 0"), 20,
                     "the movie's thumbnail did not load")
            movie_item.click()
            wait_for(lambda: page.evaluate("() => { const v = document.getElementById('viewer-video');"
                                           " return !v.hidden && v.readyState >= 2 && v.videoWidth > 0; }"),
                     20, "the recorded movie did not play in the viewer")
            shot(page, "movie-playing")
            # Seeking: the movie is served in byte ranges, so the viewer can jump towards its end.
            check(movie_statuses and set(movie_statuses.values()) == {206}, f"movies were not served in byte ranges: {movie_statuses}")
            page.evaluate("() => { const v = document.getElementById('viewer-video'); v.pause();"
                          " v.currentTime = Math.max(0, v.duration - 0.2); }")
            wait_for(lambda: page.evaluate("() => { const v = document.getElementById('viewer-video');"
                                           " return !v.seeking && v.readyState >= 2 && v.currentTime > v.duration / 2; }"),
                     20, "seeking in the recorded movie did not work")
            page.locator("#close-viewer").click()

            # The front camera: a different picture, mirrored as iOS previews it.
            back = preview_signature(page)
            page.get_by_test_id("camera").select_option(label="Browser Front (front)")
            expect(page.get_by_test_id("preview")).to_have_class(re.compile("mirrored"), timeout=10000)
            wait_for(lambda: abs(preview_signature(page)["mean"] - back["mean"]) > 5
                     or preview_signature(page)["cells"] != back["cells"], 10, "switching to the front camera did not change the preview")
            shot(page, "front-camera")
            page.get_by_test_id("camera").select_option(label="Browser Back (back)")
            expect(page.get_by_test_id("preview")).not_to_have_class(re.compile("mirrored"), timeout=10000)

            # Manual exposure: switch the mode, then a longer exposure brightens the preview.
            # The back camera's picture is back in the preview before it is measured.
            wait_for(lambda: abs(preview_signature(page)["mean"] - back["mean"]) < 5, 20,
                     "the back camera's picture did not come back after switching")
            before = sum(preview_signature(page)["mean"] for _ in range(3)) / 3
            page.locator('[data-testid="control-auto_exposure"]').select_option(label="Manual Mode")
            slider = page.locator('[data-testid="control-exposure_time_absolute"]')
            expect(slider).to_be_enabled(timeout=5000)
            slider.evaluate("(s) => { s.value = 600; s.dispatchEvent(new Event('input')); s.dispatchEvent(new Event('change')); }")
            wait_for(lambda: preview_signature(page)["mean"] > before * 1.25, 10,
                     f"manual exposure did not brighten the preview (mean {before:.1f})")
            shot(page, "manual-exposure")

            # Unplug: the banner says why; replug clears it.
            response = page.request.post(url + "/api/replay/unplug", headers=headers)
            check(response.ok, f"unplug failed: {response.status}")
            banner = page.get_by_test_id("banner")
            expect(banner).to_be_visible(timeout=10000)
            expect(banner).to_have_attribute("data-reason", "videoDeviceNotAvailable")
            expect(page.get_by_test_id("shutter")).to_be_disabled()
            shot(page, "unplugged")
            check(page.request.post(url + "/api/replay/replug", headers=headers).ok, "replug failed")
            expect(banner).to_be_hidden(timeout=10000)
            expect(page.get_by_test_id("shutter")).to_be_enabled(timeout=10000)
            shot(page, "replugged")

            # Delete moves the photo to the trash; restore brings it back.
            item.click()
            page.get_by_test_id("delete").click()
            expect(page.locator(f'#library .item[data-photo="{photo}"]')).to_have_count(0, timeout=10000)
            trashed = page.locator(f'#trash .item[data-photo="{photo}"]')
            expect(trashed).to_be_visible()
            check((library / ".trash" / photo).is_file() and not (library / photo).exists(), "the file did not move to .trash")
            shot(page, "trash")
            trashed.get_by_test_id("restore").click()
            expect(page.locator(f'#library .item[data-photo="{photo}"]')).to_be_visible(timeout=10000)
            check((library / photo).is_file(), "restore did not bring the file back")
            shot(page, "restored")

            # A client beyond loopback (through the proxy) without the token is refused; with it, it gets in.
            remote = browser.new_context(extra_http_headers={"X-Forwarded-For": "198.51.100.9"})
            outsider = remote.new_page()
            refused = outsider.goto(url + "/")
            check(refused.status == 401, f"a non-loopback client without a token got {refused.status}")
            check("token" in outsider.content(), "the refusal does not say a token is needed")
            shot(outsider, "refused-without-token")
            admitted = outsider.goto(url + f"/?token={token}")
            check(admitted.ok, f"the token did not admit the client: {admitted.status}")
            expect(outsider.get_by_test_id("shutter")).to_be_enabled(timeout=20000)
            shot(outsider, "admitted-with-token")
            check(not page_errors, "the page's script reported errors:\n  " + "\n  ".join(page_errors))
            browser.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(folder, ignore_errors=True)
    print(f"browser test passed: {len(steps)} screenshots in {artifacts}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mattebox", required=True)
    parser.add_argument("--artifacts", required=True, type=Path)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    arguments = parser.parse_args()
    if not FACES.is_file():
        print(f"browser test: {FACES} is missing (Debian package opencv-doc)", file=sys.stderr)
        return 1
    try:
        run(arguments.mattebox, arguments.artifacts, arguments.chromium)
    except Failure as failure:
        print(f"browser test FAILED: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
