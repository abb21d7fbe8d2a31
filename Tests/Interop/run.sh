#!/usr/bin/env bash
# The phone-depth interop test: each phone JPEG in ../shared/depth-samples (an iPhone's MPF
# disparity and matte, Lens Blur's GDepth) processed to HEIC by Mattebox must be read by
# pillow-heif (its own libheif) as a depth image with the phone's range, the same size as the
# depth Mattebox lists. pillow-heif comes from PyPI, pinned by hash, in .build/interop-venv.
# Without ../shared (a user's clone) or PyPI the test is skipped with a message, unless
# MATTEBOX_REQUIRE_MODELS=1 (CI), where PyPI missing is a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
mattebox="$1"
venv=.build/interop-venv
work=.build/interop-test
skip() {
    if [ "${MATTEBOX_REQUIRE_MODELS:-0}" = 1 ]; then echo "interop test: $1" >&2; exit 1; fi
    echo "interop test SKIPPED: $1"; exit 0
}
samples=../shared/depth-samples
if [ ! -d "$samples" ]; then echo "interop test SKIPPED: $samples is not beside the checkout"; exit 0; fi
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv" || skip "python3 -m venv failed"
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps --require-hashes -r Tests/Interop/requirements.txt \
    || skip "pillow-heif could not be installed from PyPI"
rm -rf "$work" && mkdir -p "$work"
"$venv/bin/python" Tests/Interop/check_phone_depth.py --mattebox "$mattebox" --samples "$samples" --work "$work"
