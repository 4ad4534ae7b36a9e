"""The dead page links miles-docs reports for a Mintlify tree, against ``mint broken-links``.

The Mintlify CLI (npm ``mint``, the version pinned in ``tests/setup_mint.sh``, installed into
``./.mint`` by ``tests/run.sh``) checks the tree offline. Links that a ``redirects`` entry of the
tree's ``docs.json`` catches are taken out of mint's list (mint still reports those whose
destination is a heading; the live site follows them, and so does miles-docs). Both lists are
multisets of (page, link as written); precision and recall must both be at least 0.95.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from support import CORPUS, ROOT

from miles_docs_plugin.core.config import load_config
from miles_docs_plugin.core.engine import Engine
from miles_docs_plugin.core.pipeline import build

MINT = ROOT / ".mint" / "node_modules" / ".bin" / "mint"
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def start_mint(docs: Path) -> subprocess.Popen[str]:
    if not MINT.exists():
        pytest.fail(f"{MINT} is missing: run `bash tests/setup_mint.sh` (tests/run.sh does)")
    return subprocess.Popen([str(MINT), "broken-links", "--no-telemetry"], cwd=docs,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "CI": "1"})


def mint_broken_links(proc: subprocess.Popen[str]) -> Counter[tuple[str, str]]:
    out, _ = proc.communicate(timeout=600)
    out = ANSI.sub("", out)
    found: Counter[tuple[str, str]] = Counter()
    page = None
    for line in out.splitlines():
        m = re.match(r"^\s*⎿\s+(\S.*?)\s*$", line)
        if m and page:
            found[(page, m.group(1))] += 1
        elif re.match(r"^[^\s].*\.mdx?$", line):
            page = line.strip()
    assert found or "no broken links" in out, out[-2000:]
    return found


def redirect_caught(docs: Path, page: str, link: str) -> bool:
    config = json.loads((docs / "docs.json").read_text("utf-8"))
    path = link.split("#", 1)[0].split("?", 1)[0]
    if not path.startswith("/"):
        base = "/" + posixpath.dirname(posixpath.splitext(page)[0])
        path = posixpath.normpath(posixpath.join(base, path))
    sources = {"/" + r["source"].strip("/") for r in config.get("redirects", [])}
    return "/" + path.strip("/") in sources


def ours(repo: Path, tmp_path: Path) -> Counter[tuple[str, str]]:
    (tmp_path / "miles-docs.yml").write_text(
        f"sources:\n  - name: up\n    repo: https://github.com/o/r.git\n    local: {repo}\n")
    result = build(load_config(tmp_path / "miles-docs.yml"), Engine(), use_scan_cache=False)
    section = result.sections["up"]
    found: Counter[tuple[str, str]] = Counter()
    for d in result.diagnostics:
        if d.code != "link" or not d.path.startswith("docs/"):
            continue
        page = d.path[len("docs/"):]
        scan = section.pages[page].scan
        assert scan is not None
        dests = [link.dest for link in scan.links if link.line == d.line and link.dest in d.message]
        assert dests, (d.path, d.line, d.message)
        found[(page, dests[0])] += 1
    return found


@pytest.mark.parametrize("tree", ["miles_host", "mem0"])
def test_dead_links_match_mint(tree: str, tmp_path: Path) -> None:
    repo = tmp_path / tree
    subprocess.run(["bash", str(CORPUS / "make_mintlify.sh"), tree, str(repo)],
                   capture_output=True, text=True, check=True)
    docs = repo / "docs"
    proc = start_mint(docs)  # runs while miles-docs checks the same tree
    mine = ours(repo, tmp_path)
    mint = mint_broken_links(proc)
    theirs = Counter({k: n for k, n in mint.items() if not redirect_caught(docs, *k)})
    common = sum((theirs & mine).values())
    precision = common / sum(mine.values()) if mine else 1.0
    recall = common / sum(theirs.values()) if theirs else 1.0
    print(f"{tree}: mint {sum(mint.values())} ({sum(theirs.values())} after redirects), "
          f"miles-docs {sum(mine.values())}, precision {precision:.3f}, recall {recall:.3f}")
    assert precision >= 0.95 and recall >= 0.95, (
        f"only mint: {sorted((theirs - mine).elements())}; "
        f"only miles-docs: {sorted((mine - theirs).elements())}")
