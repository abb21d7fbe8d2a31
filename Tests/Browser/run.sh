#!/usr/bin/env bash
# The camera app's browser test: installs Debian's chromium and Playwright from PyPI
# (pinned by hash, in .build/browser-venv; Playwright never downloads a browser), then
# drives `mattebox serve` through it. Screenshots go to test-artifacts/browser/.
# Without network to PyPI or Debian the test is skipped with a message, unless
# MATTEBOX_REQUIRE_BROWSER=1 (CI), where that is a failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
mattebox="$1"
venv=.build/browser-venv
skip() {
    if [ "${MATTEBOX_REQUIRE_BROWSER:-0}" = 1 ]; then echo "browser test: $1" >&2; exit 1; fi
    echo "browser test SKIPPED: $1"; exit 0
}
if ! command -v chromium >/dev/null; then
    SUDO=$( [ "$(id -u)" = 0 ] || echo sudo )
    { $SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q chromium; } \
        || skip "Debian's chromium could not be installed"
fi
# The page's script is linted first with Debian's ESLint (eslint:recommended; Tests/Browser/lint).
# NODE_PATH: the machine's node may be another build than Debian's, which looks for ESLint's modules elsewhere.
if ! command -v eslint >/dev/null; then
    SUDO=$( [ "$(id -u)" = 0 ] || echo sudo )
    { $SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends eslint; } \
        || skip "Debian's eslint could not be installed"
fi
lint() { NODE_PATH=/usr/share/nodejs eslint --no-eslintrc --no-ignore -c Tests/Browser/lint/eslintrc.json -f unix "$@"; }
mkdir -p .build/lint-check
printf 'let status = 1;\nundefinedThing();\n' > .build/lint-check/planted.js
if lint .build/lint-check/planted.js >/dev/null 2>&1; then echo "browser test: ESLint passed a planted mistake; the lint checks nothing" >&2; exit 1; fi
lint Sources/Apps/MatteboxServer/Page/Assets/app.js || { echo "browser test: the page's script fails ESLint (above)" >&2; exit 1; }
echo "browser test: app.js passes ESLint"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" || skip "python3 -m venv failed"
"$venv/bin/pip" install -q --disable-pip-version-check --require-hashes -r Tests/Browser/requirements.txt \
    || skip "Playwright could not be installed from PyPI"
rm -rf test-artifacts/browser
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 "$venv/bin/python" Tests/Browser/camera_app_test.py \
    --mattebox "$mattebox" --chromium "$(command -v chromium)" --artifacts test-artifacts/browser
