#!/usr/bin/env bash
# What the browser tests (tests/test_browser.py) need: Chromium from the system packages and
# Playwright for Python in ./.venv. Idempotent: installs only what is missing, quietly (the
# installer's output is shown only when it fails), and returns at once when all is there.
#
#   bash tests/setup_browser.sh
set -euo pipefail
cd "$(dirname "$0")/.."

log=$(mktemp)
trap 'rm -f "$log"' EXIT
quiet() { "$@" >"$log" 2>&1 || { cat "$log" >&2; echo "setup_browser.sh: failed: $*" >&2; exit 1; }; }

if [ ! -x /usr/bin/chromium ]; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    quiet $sudo apt-get update -qq
    quiet $sudo env DEBIAN_FRONTEND=noninteractive \
        apt-get install -y -qq --no-install-recommends chromium
fi

python=${PYTHON:-python3}
[ -x .venv/bin/python ] || quiet "$python" -m venv .venv
if ! .venv/bin/python -c "import playwright.sync_api" 2>/dev/null; then
    # Only the Python package: the tests drive /usr/bin/chromium, never `playwright install`.
    quiet .venv/bin/python -m pip install --quiet --disable-pip-version-check playwright
fi
