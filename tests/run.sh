#!/usr/bin/env bash
# The test command: sets up ./.venv on first use, then lint, types, the oldest supported
# versions (a reduced test set) and the full test suite on the newest.
#
#   bash tests/run.sh [pytest args]      (MILES_DOCS_SKIP_OLDEST=1 leaves the oldest set out)
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[dev]"

bash tests/setup_browser.sh   # Chromium (system package) + Playwright for the browser tests
bash tests/setup_mint.sh      # the Mintlify CLI (npm `mint`, pinned) for the Mintlify tests

.venv/bin/ruff check .
.venv/bin/mypy              # the package and tests/ (files = in pyproject.toml), strict
.venv/bin/mypy benchmarks   # a separate run: tests/ and benchmarks/ both have a hosts.py
.venv/bin/lint-imports --no-cache   # the import contracts of pyproject.toml [tool.importlinter]
# Every lower bound of pyproject.toml at once (.ci/noxfile.py; the whole matrix is
# `.venv/bin/nox -f .ci/noxfile.py`). Not recorded in .ci/matrix.json: that is the matrix's.
if [ "${MILES_DOCS_SKIP_OLDEST:-}" != 1 ]; then
    MILES_DOCS_MATRIX_RECORD=0 .venv/bin/nox -f .ci/noxfile.py -s oldest
fi
# pytest exits 5 when it collects no tests: with `set -e` that fails the run, as it should.
# One worker per core (MILES_DOCS_TEST_WORKERS=0 runs in this process), one test file per worker
# so that a module's fixtures (a corpus build) run once.
.venv/bin/python -m pytest -n "${MILES_DOCS_TEST_WORKERS:-auto}" --dist loadfile "$@"
