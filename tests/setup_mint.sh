#!/usr/bin/env bash
# The Mintlify CLI for the Mintlify tests: npm package `mint`, at a
# pinned version, installed into ./.mint (git-ignored), never globally. Idempotent and quiet
# (the installer's output is shown only when it fails); returns at once when it is there.
#
#   bash tests/setup_mint.sh
set -euo pipefail
cd "$(dirname "$0")/.."

MINT_VERSION=4.2.941
prefix=.mint
if [ -x "$prefix/node_modules/.bin/mint" ] && \
   grep -q "\"version\": \"$MINT_VERSION\"" "$prefix/node_modules/mint/package.json" 2>/dev/null; then
    exit 0
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
mkdir -p "$prefix"
[ -f "$prefix/package.json" ] || echo '{"private": true}' > "$prefix/package.json"
npm install --prefix "$prefix" --no-audit --no-fund --silent "mint@$MINT_VERSION" >"$log" 2>&1 || {
    cat "$log" >&2; echo "setup_mint.sh: npm install mint@$MINT_VERSION failed" >&2; exit 1; }
