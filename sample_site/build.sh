#!/usr/bin/env bash
# The main job: build the sample host site with its Diffusion section injected at build time,
# offline, from the embedded sample upstream. Sets up ./.venv on first use.
#
#   bash sample_site/build.sh          then open sample_site/mkdocs/site/index.html
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$python" -m venv .venv
# The two engines (one extra each) and the two themes the sample sites use.
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[mkdocs,sphinx]" \
    "mkdocs-material>=9.5" "furo>=2024.1"

# The stand-in upstream repository (a fixed commit id, pinned in the sample lock files).
.venv/bin/python sample_site/make_upstream.py >/dev/null

export MILES_DOCS_OFFLINE=1 NO_MKDOCS_2_WARNING=1
.venv/bin/mkdocs build --strict --clean -f sample_site/mkdocs/mkdocs.yml
.venv/bin/sphinx-build -W --keep-going -q -b html sample_site/sphinx sample_site/sphinx/_build/html
.venv/bin/miles-docs mintlify build --docs sample_site/mintlify --out sample_site/mintlify_site
echo "MkDocs sample: sample_site/mkdocs/site/index.html (injected section: diffusion/)"
echo "Sphinx sample: sample_site/sphinx/_build/html/index.html (same section, same pin)"
echo "Mintlify sample: sample_site/mintlify_site/ (deploy it, or: cd sample_site/mintlify_site && npx mint@4.2.941 dev)"
